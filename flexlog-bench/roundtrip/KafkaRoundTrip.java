import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Round trips, Kafka side (flexlog-bench/README.md#bench-consume-the-consumer-vs-kafkas-consumer-issue-12):
 * the shape of Kafka's own EndToEndLatency tool (a synchronous send with acks=all and linger.ms=0,
 * then one poll with fetch.max.wait.ms=0 that must return exactly that record), with the same
 * optional unmeasured warm-up and the same report as `bin/flexlog bench consume --mode roundtrip`.
 *
 * <p>Arguments: bootstrap, topic (one partition), round trips, warm-up round trips, record bytes.
 */
public final class KafkaRoundTrip {
  public static void main(String[] args) throws Exception {
    String topic = args[1];
    int roundTrips = Integer.parseInt(args[2]);
    int warmup = Integer.parseInt(args[3]);
    int recordBytes = Integer.parseInt(args[4]);
    Properties p = new Properties();
    p.setProperty("bootstrap.servers", args[0]);
    p.setProperty("acks", "all");
    p.setProperty("linger.ms", "0");
    Properties c = new Properties();
    c.setProperty("bootstrap.servers", args[0]);
    c.setProperty("group.id", "roundtrip-" + System.currentTimeMillis());
    c.setProperty("enable.auto.commit", "false");
    c.setProperty("auto.offset.reset", "latest");
    c.setProperty("fetch.max.wait.ms", "0");
    long[] latencyNs = new long[roundTrips];
    long[] ackNs = new long[roundTrips];
    try (KafkaProducer<byte[], byte[]> producer =
            new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        KafkaConsumer<byte[], byte[]> consumer =
            new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = List.of(new TopicPartition(topic, 0));
      consumer.assign(partitions);
      consumer.seekToEnd(partitions);
      consumer.position(partitions.get(0));
      Random random = new Random(0);
      byte[] value = new byte[recordBytes];
      for (int i = -warmup; i < roundTrips; i++) {
        Arrays.fill(value, (byte) ('A' + random.nextInt(26)));
        long begin = System.nanoTime();
        long offset = producer.send(new ProducerRecord<>(topic, value)).get().offset();
        long acked = System.nanoTime() - begin;
        ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofSeconds(10));
        long elapsed = System.nanoTime() - begin;
        if (polled.count() != 1) {
          throw new IllegalStateException("round trip " + i + ": poll returned " + polled.count());
        }
        ConsumerRecord<byte[], byte[]> r = polled.iterator().next();
        if (r.offset() != offset || !Arrays.equals(r.value(), value)) {
          throw new IllegalStateException("round trip " + i + ": not the record sent");
        }
        if (i >= 0) {
          ackNs[i] = acked;
          latencyNs[i] = elapsed;
        }
      }
    }
    StringBuilder slow = new StringBuilder("kafka over 1 ms per 1,000 round trips, in order:");
    for (int g = 0; g < roundTrips; g += 1000) {
      int count = 0;
      for (int i = g; i < Math.min(g + 1000, roundTrips); i++) {
        count += latencyNs[i] > 1_000_000 ? 1 : 0;
      }
      slow.append(' ').append(count);
    }
    long[] s = latencyNs.clone();
    Arrays.sort(s);
    double avgMs = Arrays.stream(s).average().orElse(0) / 1e6;
    System.out.printf(
        "kafka round trips: %,d of %d bytes, avg %.4f ms, p50 %d us, p99 %d us, p99.9 %d us,"
            + " max %d us%n",
        s.length, recordBytes, avgMs, s[(int) (s.length * 0.5)] / 1000,
        s[(int) (s.length * 0.99)] / 1000, s[(int) (s.length * 0.999)] / 1000,
        s[s.length - 1] / 1000);
    long[] polls = new long[roundTrips];
    for (int i = 0; i < roundTrips; i++) {
      polls[i] = latencyNs[i] - ackNs[i];
    }
    Arrays.sort(ackNs);
    Arrays.sort(polls);
    System.out.printf(
        "kafka parts: send to ack p50 %d us, p99 %d us; poll after the ack p50 %d us, p99 %d us%n",
        ackNs[(int) (roundTrips * 0.5)] / 1000, ackNs[(int) (roundTrips * 0.99)] / 1000,
        polls[(int) (roundTrips * 0.5)] / 1000, polls[(int) (roundTrips * 0.99)] / 1000);
    System.out.println(slow);
  }
}
