package io.flexlog.bench.cli;

import io.flexlog.client.producer.FlexLogProducer;
import io.flexlog.client.producer.ProducerRecord;
import io.flexlog.client.producer.Serializers;
import io.flexlog.core.config.ConfigException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Runs {@code flexlog bench produce}: one producer, records of random bytes, latency from {@code
 * send} to its callback (as Kafka's ProducerPerformance measures it, but in microseconds). Prints a
 * progress line every 5 s and the summary in ProducerPerformance's words.
 */
final class ProduceBenchmark {
  private static final long REPORT_NS = 5_000_000_000L;

  private ProduceBenchmark() {}

  static int run(ProduceSettings s, PrintWriter out, PrintWriter err) throws InterruptedException {
    Map<String, Object> props = new HashMap<>(s.producerProps());
    props.put("bootstrap.servers", s.bootstrap());
    FlexLogProducer<byte[], byte[]> producer;
    try {
      producer =
          new FlexLogProducer<>(props, new Serializers.ByteArray(), new Serializers.ByteArray());
    } catch (ConfigException e) {
      err.println("--producer-props: " + e.getMessage());
      return AppendBenchmark.EXIT_USAGE;
    }
    byte[] value = new byte[s.recordSize()];
    new SplittableRandom(42).nextBytes(value);
    Recorder latencies = new Recorder(3);
    AtomicLong failed = new AtomicLong();
    AtomicReference<Exception> firstError = new AtomicReference<>();
    long measuredStart = 0;
    long windowStart = System.nanoTime();
    long windowCount = 0;
    Histogram total = new Histogram(3);
    boolean sendFailed = true;
    try {
      long start = System.nanoTime();
      for (long i = 0; i < s.numRecords(); i++) {
        if (firstError.get() != null) {
          // A failed record makes the run's numbers meaningless, and the rest would fail alike
          // (an unknown color, say): stop here rather than send the remaining records.
          err.println(
              "produce failed after "
                  + i
                  + " of "
                  + s.numRecords()
                  + " records were sent: "
                  + firstError.get().getMessage());
          return AppendBenchmark.EXIT_FAILED;
        }
        if (i == s.warmupRecords()) {
          producer.flush();
          latencies.getIntervalHistogram();
          measuredStart = System.nanoTime();
        }
        throttle(s.throughput(), i, start);
        long sentNs = System.nanoTime();
        boolean counted = i >= s.warmupRecords();
        producer.send(
            new ProducerRecord<>(s.color(), value),
            (metadata, error) -> {
              if (error != null) {
                failed.incrementAndGet();
                firstError.compareAndSet(null, error);
              } else if (counted) {
                latencies.recordValue(Math.max(1, (System.nanoTime() - sentNs) / 1000));
              }
            });
        windowCount++;
        if (System.nanoTime() - windowStart > REPORT_NS) {
          Histogram window = latencies.getIntervalHistogram();
          total.add(window);
          progress(out, windowCount, System.nanoTime() - windowStart, s.recordSize(), window);
          windowStart = System.nanoTime();
          windowCount = 0;
        }
      }
      producer.flush();
      sendFailed = false;
    } catch (RuntimeException e) {
      err.println("produce failed: " + e.getMessage());
      return AppendBenchmark.EXIT_FAILED;
    } finally {
      if (sendFailed) {
        // no wait for delivery.timeout.ms: what is still in flight fails now, and the run ends
        producer.close(Duration.ZERO);
      } else {
        producer.close();
      }
    }
    long elapsedNs = System.nanoTime() - measuredStart;
    total.add(latencies.getIntervalHistogram());
    summary(out, s.numRecords() - s.warmupRecords(), elapsedNs, s.recordSize(), total);
    if (failed.get() > 0) {
      err.println(failed.get() + " records failed; the first: " + firstError.get());
      return AppendBenchmark.EXIT_FAILED;
    }
    return AppendBenchmark.EXIT_OK;
  }

  private static void throttle(long perSecond, long sent, long startNs)
      throws InterruptedException {
    if (perSecond < 0) {
      return;
    }
    long dueNs = startNs + sent * 1_000_000_000L / perSecond;
    long waitNs = dueNs - System.nanoTime();
    if (waitNs > 0) {
      Thread.sleep(waitNs / 1_000_000, (int) (waitNs % 1_000_000));
    }
  }

  private static void progress(
      PrintWriter out, long records, long elapsedNs, int recordSize, Histogram latency) {
    double perSecond = records * 1e9 / elapsedNs;
    out.printf(
        Locale.ROOT,
        "%d records sent, %.1f records/sec (%.2f MB/sec), %.2f ms avg latency, %.2f ms max"
            + " latency.%n",
        records,
        perSecond,
        perSecond * recordSize / (1024.0 * 1024.0),
        latency.getMean() / 1000.0,
        latency.getMaxValue() / 1000.0);
    out.flush();
  }

  private static void summary(
      PrintWriter out, long records, long elapsedNs, int recordSize, Histogram latency) {
    double perSecond = records * 1e9 / elapsedNs;
    out.printf(
        Locale.ROOT,
        "%d records sent, %.1f records/sec (%.2f MB/sec), %.2f ms avg latency, %.2f ms max"
            + " latency, %.2f ms 50th, %.2f ms 95th, %.2f ms 99th, %.2f ms 99.9th.%n",
        records,
        perSecond,
        perSecond * recordSize / (1024.0 * 1024.0),
        latency.getMean() / 1000.0,
        latency.getMaxValue() / 1000.0,
        latency.getValueAtPercentile(50) / 1000.0,
        latency.getValueAtPercentile(95) / 1000.0,
        latency.getValueAtPercentile(99) / 1000.0,
        latency.getValueAtPercentile(99.9) / 1000.0);
    out.flush();
  }
}
