package io.flexlog.bench.consume;

import io.flexlog.client.consumer.ColorShard;
import io.flexlog.client.consumer.ConsumerConfig;
import io.flexlog.client.consumer.ConsumerRecord;
import io.flexlog.client.consumer.ConsumerRecords;
import io.flexlog.client.consumer.FlexLogConsumer;
import io.flexlog.client.producer.FlexLogProducer;
import io.flexlog.client.producer.ProducerRecord;
import io.flexlog.client.producer.RecordMetadata;
import io.flexlog.client.producer.Serializers;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;

/**
 * Produce to poll latency in the shape of Kafka's {@code EndToEndLatency}: {@code n} sequential
 * round trips, each a {@link FlexLogProducer} send acknowledged by every replica ({@code
 * linger.ms=0}, the {@code acks=all} equivalent) followed by one {@link FlexLogConsumer} poll
 * ({@code fetch.max.wait.ms=0}) that must return exactly that record. The latency of a round trip
 * runs from before the send to the poll's return (flexlog-bench/README.md#bench-consume).
 */
final class RoundTripRun {
  private static final Duration POLL_TIMEOUT = Duration.ofSeconds(10);

  /** The {@code over 1 ms per 1,000} line counts round trips longer than this. */
  static final long SLOW_NS = 1_000_000;

  private final String bootstrap;
  private final String color;
  private final int recordBytes;
  private final int roundTrips;
  private final int warmupRoundTrips;
  private final PrintWriter out;

  /**
   * @param warmupRoundTrips round trips made, checked and not measured before the measured ones (0,
   *     the default, is Kafka's shape: its tool measures from its first round trip)
   */
  RoundTripRun(
      String bootstrap,
      String color,
      int recordBytes,
      int roundTrips,
      int warmupRoundTrips,
      PrintWriter out) {
    this.bootstrap = bootstrap;
    this.color = color;
    this.recordBytes = recordBytes;
    this.roundTrips = roundTrips;
    this.warmupRoundTrips = warmupRoundTrips;
    this.out = out;
  }

  int run() throws InterruptedException, ExecutionException {
    Map<String, Object> consumerSettings =
        Map.of(
            "bootstrap.servers", bootstrap,
            "auto.offset.reset", "latest",
            "fetch.max.wait.ms", "0");
    Map<String, Object> producerSettings = Map.of("bootstrap.servers", bootstrap, "linger.ms", "0");
    long[] latencyNs = new long[roundTrips];
    long[] ackNs = new long[roundTrips];
    try (FlexLogProducer<byte[], byte[]> producer =
            new FlexLogProducer<>(
                producerSettings, new Serializers.ByteArray(), new Serializers.ByteArray());
        FlexLogConsumer<byte[], byte[]> consumer =
            new FlexLogConsumer<>(ConsumerConfig.fromMap(consumerSettings), null, null)) {
      ColorShard whole = ColorShard.wholeColor(color);
      consumer.assign(List.of(whole));
      consumer.seekToEnd(List.of(whole));
      consumer.position(whole);
      Random random = new Random(0);
      byte[] value = new byte[recordBytes];
      for (int i = -warmupRoundTrips; i < roundTrips; i++) {
        Arrays.fill(value, (byte) ('A' + random.nextInt(26)));
        long begin = System.nanoTime();
        RecordMetadata sent = producer.send(new ProducerRecord<>(color, value)).get();
        long acked = System.nanoTime() - begin;
        ConsumerRecords<byte[], byte[]> polled = consumer.poll(POLL_TIMEOUT);
        long elapsed = System.nanoTime() - begin;
        String problem = check(polled, sent.sn(), value);
        if (problem != null) {
          out.printf("round trip %d failed: %s%n", i, problem);
          out.flush();
          return 1;
        }
        if (i >= 0) {
          ackNs[i] = acked;
          latencyNs[i] = elapsed;
        }
        if (i % 1000 == 0) {
          out.printf("%d\t%.3f ms%s%n", i, elapsed / 1e6, i < 0 ? " (warm-up)" : "");
          out.flush();
        }
      }
    }
    report(latencyNs, ackNs);
    return 0;
  }

  /** Why {@code polled} is not exactly the record sent as {@code sn}, or null if it is. */
  static String check(ConsumerRecords<byte[], byte[]> polled, long sn, byte[] value) {
    if (polled.isEmpty()) {
      return "poll returned nothing within " + POLL_TIMEOUT.toMillis() + " ms";
    }
    if (polled.count() != 1) {
      return "poll returned " + polled.count() + " records, expected only the one sent";
    }
    Iterator<ConsumerRecord<byte[], byte[]>> it = polled.iterator();
    ConsumerRecord<byte[], byte[]> record = it.next();
    if (record.sn() != sn || !Arrays.equals(record.value(), value)) {
      return "poll returned SN " + record.sn() + ", not the record sent as SN " + sn;
    }
    return null;
  }

  /**
   * Microseconds, and whole milliseconds truncated and indexed as Kafka's tool prints them; then
   * the two parts of a round trip: the send until its acknowledgement, and the poll after it; then
   * how many round trips took over 1 ms in each 1,000, in order, which tells a fresh JVM's warm-up
   * from a tail that lasts.
   */
  private void report(long[] latencyNs, long[] ackNs) {
    long[] sorted = latencyNs.clone();
    Arrays.sort(sorted);
    double avgMs = Arrays.stream(sorted).average().orElse(0) / 1e6;
    out.printf(
        "round trips: %,d of %d bytes, avg %.4f ms, p50 %d us, p99 %d us, p99.9 %d us, max %d us%n",
        sorted.length,
        recordBytes,
        avgMs,
        at(sorted, 0.5) / 1000,
        at(sorted, 0.99) / 1000,
        at(sorted, 0.999) / 1000,
        sorted[sorted.length - 1] / 1000);
    out.printf(
        "as EndToEndLatency prints it (whole ms, truncated): Avg latency: %.4f ms, Percentiles:"
            + " 50th = %d, 99th = %d, 99.9th = %d%n",
        avgMs,
        at(sorted, 0.5) / 1_000_000,
        at(sorted, 0.99) / 1_000_000,
        at(sorted, 0.999) / 1_000_000);
    long[] acks = ackNs.clone();
    long[] polls = new long[latencyNs.length];
    for (int i = 0; i < polls.length; i++) {
      polls[i] = latencyNs[i] - ackNs[i];
    }
    Arrays.sort(acks);
    Arrays.sort(polls);
    out.printf(
        "parts: send to ack p50 %d us, p99 %d us; poll after the ack p50 %d us, p99 %d us%n",
        at(acks, 0.5) / 1000, at(acks, 0.99) / 1000, at(polls, 0.5) / 1000, at(polls, 0.99) / 1000);
    StringBuilder slow = new StringBuilder("over 1 ms per 1,000 round trips, in order:");
    for (int count : slowPerThousand(latencyNs, SLOW_NS)) {
      slow.append(' ').append(count);
    }
    out.println(slow);
    out.flush();
  }

  /**
   * For each 1,000 round trips in the order made (the last group may be shorter), how many took
   * longer than {@code thresholdNs}.
   */
  static int[] slowPerThousand(long[] latencyNs, long thresholdNs) {
    int[] counts = new int[(latencyNs.length + 999) / 1000];
    for (int i = 0; i < latencyNs.length; i++) {
      if (latencyNs[i] > thresholdNs) {
        counts[i / 1000]++;
      }
    }
    return counts;
  }

  private static long at(long[] sorted, double quantile) {
    return sorted[(int) (sorted.length * quantile)];
  }
}
