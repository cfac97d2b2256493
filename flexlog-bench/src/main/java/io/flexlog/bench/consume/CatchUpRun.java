package io.flexlog.bench.consume;

import io.flexlog.client.FlexLog;
import io.flexlog.client.RecordStream;
import io.flexlog.client.consumer.ColorShard;
import io.flexlog.client.consumer.ConsumerConfig;
import io.flexlog.client.consumer.FlexLogConsumer;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Catch-up: loads {@code records} records, then reads that many from SN 0 of the color with a fresh
 * reader, like Kafka's ConsumerPerformance over a topic written beforehand. As in that tool, the
 * clock starts once the reader is built (flexlog-bench/README.md#bench-consume); the build time and
 * the rate counting it are printed too.
 */
final class CatchUpRun {
  private final String bootstrap;
  private final String color;
  private final int records;
  private final int recordBytes;
  private final String reader;
  private final boolean load;
  private final PrintWriter out;

  CatchUpRun(
      String bootstrap,
      String color,
      int records,
      int recordBytes,
      String reader,
      boolean load,
      PrintWriter out) {
    this.load = load;
    this.bootstrap = bootstrap;
    this.color = color;
    this.records = records;
    this.recordBytes = recordBytes;
    this.reader = reader;
    this.out = out;
  }

  int run() throws InterruptedException {
    if (load) {
      load();
    }
    Timing t = reader.equals("stream") ? readStream() : readConsumer();
    double seconds = (t.endNs - t.startNs) / 1e9;
    out.printf(
        "catch-up (%s): %,d records in %.2f s: %,.0f records/s, %.1f MB/s%n",
        reader, t.read, seconds, t.read / seconds, t.read * (double) recordBytes / seconds / 1e6);
    out.printf(
        "  the clock starts once the reader is built, as in Kafka's ConsumerPerformance; building"
            + " it (connection included) took %d ms, the first records came %d ms after the"
            + " clock started; counting the build: %,.0f records/s%n",
        (t.startNs - t.buildNs) / 1_000_000,
        t.firstNs == 0 ? -1 : (t.firstNs - t.startNs) / 1_000_000,
        t.read / ((t.endNs - t.buildNs) / 1e9));
    out.flush();
    return t.read == records ? 0 : 1;
  }

  /** When the reader was being built, when the clock started, the first records and the end. */
  private record Timing(long read, long buildNs, long startNs, long firstNs, long endNs) {}

  private void load() throws InterruptedException {
    try (FlexLog log = FlexLog.connect(bootstrap)) {
      long start = System.nanoTime();
      Loader.load(log, color, records, recordBytes);
      double loadS = (System.nanoTime() - start) / 1e9;
      out.printf("loaded %,d records in %.1f s (%,.0f rec/s)%n", records, loadS, records / loadS);
      out.flush();
    }
  }

  private Timing readConsumer() {
    Map<String, Object> settings =
        Map.of(
            "bootstrap.servers", bootstrap,
            "auto.offset.reset", "earliest",
            "max.poll.records", "2000");
    long buildNs = System.nanoTime();
    try (FlexLogConsumer<byte[], byte[]> consumer =
        new FlexLogConsumer<>(ConsumerConfig.fromMap(settings), null, null)) {
      long startNs = System.nanoTime();
      consumer.assign(List.of(ColorShard.wholeColor(color)));
      long read = 0;
      long firstNs = 0;
      long idleSince = System.nanoTime();
      while (read < records && System.nanoTime() - idleSince < 10_000_000_000L) {
        int n = consumer.poll(Duration.ofMillis(100)).count();
        if (n > 0) {
          // The color may hold more (a load repeated): count up to the records asked for, as
          // Kafka's ConsumerPerformance stops at its message count.
          read += Math.min(n, records - read);
          idleSince = System.nanoTime();
          firstNs = firstNs == 0 ? idleSince : firstNs;
        }
      }
      return new Timing(read, buildNs, startNs, firstNs, System.nanoTime());
    }
  }

  private Timing readStream() {
    long buildNs = System.nanoTime();
    try (FlexLog log = FlexLog.connect(bootstrap)) {
      long startNs = System.nanoTime();
      long read = 0;
      long firstNs = 0;
      try (RecordStream stream = log.subscribe(color, 0)) {
        while (read < records && stream.poll(Duration.ofSeconds(10)) != null) {
          read++;
          firstNs = firstNs == 0 ? System.nanoTime() : firstNs;
        }
      }
      return new Timing(read, buildNs, startNs, firstNs, System.nanoTime());
    }
  }
}
