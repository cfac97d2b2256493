import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Rebalance time, Kafka side, in the shape of {@code bin/flexlog bench consume --mode rebalance}: a
 * group of 4 consumers over a fresh topic of {@code partitions} partitions (RF 3, min ISR 2), three
 * in this process and one in a child JVM, records produced at {@code rate}/s round-robin over the
 * partitions; once every member holds its share the child gets SIGKILL, and the time until a
 * surviving member polls a record of every partition the child held is reported.
 *
 * <pre>
 * java KafkaRebalance BOOTSTRAP PARTITIONS RATE SESSION_TIMEOUT_MS
 * java KafkaRebalance member BOOTSTRAP TOPIC GROUP SESSION_TIMEOUT_MS   (the child)
 * </pre>
 */
public final class KafkaRebalance {
  private static final int MEMBERS = 4;

  public static void main(String[] args) throws Exception {
    if (args[0].equals("member")) {
      try (KafkaConsumer<byte[], byte[]> c = consumer(args[1], args[3], Integer.parseInt(args[4]))) {
        c.subscribe(List.of(args[2]));
        while (true) {
          c.poll(Duration.ofMillis(100));
        }
      }
    }
    String bootstrap = args[0];
    int partitions = Integer.parseInt(args[1]);
    int rate = Integer.parseInt(args[2]);
    int sessionTimeoutMs = Integer.parseInt(args[3]);
    String topic = "rebalance-" + System.currentTimeMillis();
    String group = topic;
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(topic, partitions, (short) 3)
                      .configs(Map.of("min.insync.replicas", "2"))))
          .all()
          .get();
    }
    Properties p = new Properties();
    p.setProperty("bootstrap.servers", bootstrap);
    p.setProperty("acks", "all");
    p.setProperty("linger.ms", "0");
    KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    AtomicLong sent = new AtomicLong();
    byte[] payload = new byte[1024];
    ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
    ticker.scheduleAtFixedRate(
        () ->
            producer.send(
                new ProducerRecord<>(topic, (int) (sent.getAndIncrement() % partitions), null, payload)),
        0,
        1_000_000_000L / rate,
        TimeUnit.NANOSECONDS);
    String java = ProcessHandle.current().info().command().orElse("java");
    Process victim =
        new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                KafkaRebalance.class.getName(),
                "member",
                bootstrap,
                topic,
                group,
                Integer.toString(sessionTimeoutMs))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    List<KafkaConsumer<byte[], byte[]>> survivors = new ArrayList<>();
    for (int i = 0; i < MEMBERS - 1; i++) {
      KafkaConsumer<byte[], byte[]> c = consumer(bootstrap, group, sessionTimeoutMs);
      c.subscribe(List.of(topic));
      survivors.add(c);
    }
    int share = partitions / MEMBERS;
    Set<TopicPartition> held = new HashSet<>();
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (true) {
      held.clear();
      boolean even = true;
      for (KafkaConsumer<byte[], byte[]> c : survivors) {
        c.poll(Duration.ofMillis(20));
        held.addAll(c.assignment());
        even &= c.assignment().size() == share;
      }
      if (even && held.size() == partitions - share) {
        break;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the group of " + MEMBERS + " did not balance in 120 s");
      }
    }
    Set<Integer> victimPartitions = new TreeSet<>();
    for (int i = 0; i < partitions; i++) {
      if (!held.contains(new TopicPartition(topic, i))) {
        victimPartitions.add(i);
      }
    }
    Map<Integer, Long> firstAfterKill = new ConcurrentHashMap<>();
    long[] killedAt = {Long.MAX_VALUE};
    boolean[] running = {true};
    List<Thread> threads = new ArrayList<>();
    for (KafkaConsumer<byte[], byte[]> c : survivors) {
      Thread t =
          new Thread(
              () -> {
                try {
                  while (running[0]) {
                    for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(20))) {
                      long now = System.nanoTime();
                      if (now > killedAt[0]) {
                        firstAfterKill.putIfAbsent(r.partition(), now);
                      }
                    }
                  }
                } catch (WakeupException e) {
                  // asked to stop
                }
                c.close(Duration.ofSeconds(1));
              },
              "member");
      threads.add(t);
      t.start();
    }
    Thread.sleep(1000);
    victim.destroyForcibly();
    killedAt[0] = System.nanoTime();
    long end = killedAt[0] + 120_000_000_000L;
    while (!firstAfterKill.keySet().containsAll(victimPartitions) && System.nanoTime() < end) {
      Thread.sleep(10);
    }
    long worst = 0;
    for (int partition : victimPartitions) {
      worst = Math.max(worst, firstAfterKill.getOrDefault(partition, Long.MAX_VALUE) - killedAt[0]);
    }
    System.out.printf(
        "kafka rebalance after SIGKILL of 1 of %d members (%d partitions, session.timeout.ms %d):"
            + " its %d partitions read again after %.0f ms%n",
        MEMBERS, partitions, sessionTimeoutMs, victimPartitions.size(), worst / 1e6);
    ticker.shutdownNow();
    running[0] = false;
    survivors.forEach(KafkaConsumer::wakeup);
    for (Thread t : threads) {
      t.join(5000);
    }
    producer.close(Duration.ofSeconds(2));
    System.exit(firstAfterKill.keySet().containsAll(victimPartitions) ? 0 : 1);
  }

  private static KafkaConsumer<byte[], byte[]> consumer(
      String bootstrap, String group, int sessionTimeoutMs) {
    Properties p = new Properties();
    p.setProperty("bootstrap.servers", bootstrap);
    p.setProperty("group.id", group);
    p.setProperty("auto.offset.reset", "latest");
    p.setProperty("session.timeout.ms", Integer.toString(sessionTimeoutMs));
    p.setProperty("heartbeat.interval.ms", Integer.toString(sessionTimeoutMs / 3));
    return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }
}
