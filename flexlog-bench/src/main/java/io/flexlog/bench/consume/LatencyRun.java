package io.flexlog.bench.consume;

import io.flexlog.client.FlexLog;
import io.flexlog.client.consumer.ColorShard;
import io.flexlog.client.consumer.ConsumerConfig;
import io.flexlog.client.consumer.ConsumerRecord;
import io.flexlog.client.consumer.FlexLogConsumer;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Produce to poll latency at a fixed rate, like Kafka's EndToEndLatency but open loop: each payload
 * carries its send time; the consumer (same process, so the clocks agree) records the time from
 * send to the poll that returned it.
 */
final class LatencyRun {
  private static final int WARMUP_S = 5;

  private final String bootstrap;
  private final String color;
  private final int recordBytes;
  private final int rate;
  private final int seconds;
  private final PrintWriter out;

  LatencyRun(
      String bootstrap, String color, int recordBytes, int rate, int seconds, PrintWriter out) {
    this.bootstrap = bootstrap;
    this.color = color;
    this.recordBytes = recordBytes;
    this.rate = rate;
    this.seconds = seconds;
    this.out = out;
  }

  int run() throws InterruptedException {
    Histogram latencyUs = new Histogram(60_000_000L, 3);
    Map<String, Object> settings =
        Map.of("bootstrap.servers", bootstrap, "auto.offset.reset", "earliest");
    ScheduledExecutorService producer = Executors.newSingleThreadScheduledExecutor();
    try (FlexLog log = FlexLog.connect(bootstrap);
        FlexLogConsumer<byte[], byte[]> consumer =
            new FlexLogConsumer<>(ConsumerConfig.fromMap(settings), null, null)) {
      consumer.assign(List.of(ColorShard.wholeColor(color)));
      consumer.poll(Duration.ofMillis(200));
      long periodNs = 1_000_000_000L / rate;
      producer.scheduleAtFixedRate(
          () -> log.appendAsync(color, Loader.payload(recordBytes)),
          0,
          periodNs,
          TimeUnit.NANOSECONDS);
      long start = System.nanoTime();
      long measureFrom = start + WARMUP_S * 1_000_000_000L;
      long end = measureFrom + seconds * 1_000_000_000L;
      long count = 0;
      while (System.nanoTime() < end) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          long now = System.nanoTime();
          long sent = Loader.sentNs(r.value());
          if (sent >= measureFrom) {
            latencyUs.recordValue(Math.max(0, (now - sent) / 1000));
            count++;
          }
        }
      }
      producer.shutdownNow();
      out.printf(
          "produce->poll latency at %d rec/s over %d s: %,d records, p50 %d us, p99 %d us,"
              + " p99.9 %d us, max %d us%n",
          rate,
          seconds,
          count,
          latencyUs.getValueAtPercentile(50),
          latencyUs.getValueAtPercentile(99),
          latencyUs.getValueAtPercentile(99.9),
          latencyUs.getMaxValue());
      out.flush();
      return count > 0 ? 0 : 1;
    } finally {
      producer.shutdownNow();
      producer.awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
