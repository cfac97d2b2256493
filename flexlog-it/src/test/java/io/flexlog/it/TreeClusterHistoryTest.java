package io.flexlog.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.LogRecord;
import io.flexlog.client.RecordStream;
import io.flexlog.it.history.History;
import io.flexlog.it.history.HistoryChecker;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code dev --tree} topology as separate processes (a root and two leaf sequencers, six
 * replica nodes): 16 concurrent clients append to and read from {@code global}, {@code left} and
 * {@code right} while two subscribers per color follow along; the {@link HistoryChecker} then
 * checks the recorded history. Run once undisturbed and once with a replica process killed ({@code
 * kill -9}) and restarted in the middle.
 */
class TreeClusterHistoryTest {
  private static final List<String> COLORS = List.of("global", "left", "right");
  private static final int CLIENTS = 16;
  private static final Duration RUN = Duration.ofSeconds(20);
  private static final Duration DRAIN = Duration.ofSeconds(60);

  @TempDir Path dir;
  @RegisterExtension final NodeLogsOnFailure nodeLogs = new NodeLogsOnFailure();

  private TestCluster cluster;
  private final History history = new History();
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
  private final Map<String, AtomicLong> maxAcked = new ConcurrentHashMap<>();
  private final List<Thread> threads = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    stopping.set(true);
    for (Thread t : threads) {
      t.interrupt();
      t.join(10_000);
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Timeout(240)
  void shouldKeepEveryGuaranteeOnTheTreeUnderConcurrentClients() throws Exception {
    run(false);
  }

  @Test
  @Timeout(300)
  void shouldKeepEveryGuaranteeWhileAReplicaIsKilledAndRestarted() throws Exception {
    run(true);
  }

  private void run(boolean killReplica) throws Exception {
    cluster = nodeLogs.watch(TestCluster.create(dir, TestCluster.Layout.tree())).start();
    COLORS.forEach(c -> maxAcked.put(c, new AtomicLong()));
    List<Subscriber> subscribers = new ArrayList<>();
    for (String color : COLORS) {
      subscribers.add(subscribe(color, "early-" + color));
    }
    for (int client = 0; client < CLIENTS; client++) {
      int id = client;
      start("client-" + id, () -> appendAndRead(id));
    }
    long runMs = RUN.toMillis();
    Thread.sleep(runMs / 3);
    for (String color : COLORS) {
      subscribers.add(subscribe(color, "late-" + color));
    }
    if (killReplica) {
      cluster.killReplica(4);
      Thread.sleep(runMs / 4);
      cluster.restartReplica(4);
      Thread.sleep(runMs - runMs / 3 - runMs / 4);
    } else {
      Thread.sleep(runMs - runMs / 3);
    }
    stopping.set(true);
    for (Thread t : List.copyOf(threads)) {
      if (t.getName().startsWith("client-")) {
        t.join(DRAIN.toMillis());
      }
    }
    for (Subscriber s : subscribers) {
      s.awaitAtLeast(maxAcked.get(s.color).get(), DRAIN);
      s.recorded.complete();
    }
    assertThat(failures).isEmpty();
    long acked = COLORS.stream().mapToLong(c -> maxAcked.get(c).get() > 0 ? 1 : 0).sum();
    assertThat(acked).as("colors with acknowledged appends").isEqualTo(COLORS.size());
    HistoryChecker.assertValid(history);
  }

  private void appendAndRead(int client) {
    Random random = new Random(client * 7919L);
    List<long[]> mine = new ArrayList<>(); // color index, sn
    try (FlexLog log = FlexLog.connect(config())) {
      for (long counter = 0; !stopping.get(); counter++) {
        int colorIndex = random.nextInt(COLORS.size());
        String color = COLORS.get(colorIndex);
        byte[] payload = payload(random, client, counter);
        History.Append op = history.appendInvoked("client-" + client, color, payload);
        try {
          long sn = log.append(color, payload);
          op.acked(sn);
          maxAcked.get(color).accumulateAndGet(sn, Math::max);
          mine.add(new long[] {colorIndex, sn});
        } catch (RuntimeException e) {
          op.failed(e);
        }
        if (counter % 8 == 7 && !mine.isEmpty()) {
          long[] target = mine.get(random.nextInt(mine.size()));
          String readColor = COLORS.get((int) target[0]);
          History.Read read = history.readInvoked("client-" + client, readColor, target[1]);
          try {
            Optional<LogRecord> record = log.read(readColor, target[1]);
            if (record.isPresent()) {
              read.found(record.get().payload());
            } else {
              read.hole();
            }
          } catch (RuntimeException e) {
            // A failed read says nothing; the checker ignores it.
          }
        }
      }
    } catch (Throwable t) {
      failures.add(new AssertionError("client " + client + " failed", t));
    }
  }

  private Subscriber subscribe(String color, String name) {
    Subscriber s = new Subscriber(color, history.subscriber(name, color, 0));
    start("subscriber-" + name, s::run);
    return s;
  }

  private void start(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    threads.add(t);
    t.start();
  }

  private FlexLogConfig config() {
    return FlexLogConfig.builder()
        .bootstrapServers(cluster.bootstrap())
        .requestTimeout(Duration.ofSeconds(1))
        .deliveryTimeout(Duration.ofSeconds(40))
        .readTimeout(Duration.ofSeconds(10))
        .build();
  }

  private static byte[] payload(Random random, int client, long counter) {
    byte[] payload = new byte[12 + random.nextInt(512)];
    random.nextBytes(payload);
    ByteBuffer.wrap(payload).putInt(client).putLong(counter);
    return payload;
  }

  /** Follows one color from SN 0 and records every delivered record. */
  private final class Subscriber {
    final String color;
    final History.Subscriber recorded;
    final AtomicLong lastSn = new AtomicLong();
    final AtomicBoolean done = new AtomicBoolean();

    Subscriber(String color, History.Subscriber recorded) {
      this.color = color;
      this.recorded = recorded;
    }

    void run() {
      try (FlexLog log = FlexLog.connect(config());
          RecordStream stream = log.subscribe(color, 0)) {
        while (!done.get()) {
          LogRecord record = stream.poll(Duration.ofMillis(200));
          if (record != null) {
            recorded.delivered(record.sn(), record.payload());
            lastSn.set(record.sn());
          }
        }
      } catch (Throwable t) {
        failures.add(new AssertionError("subscriber " + recorded + " failed", t));
      }
    }

    void awaitAtLeast(long sn, Duration timeout) throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (lastSn.get() < sn && System.nanoTime() < deadline && failures.isEmpty()) {
        Thread.sleep(50);
      }
      done.set(true);
    }
  }
}
