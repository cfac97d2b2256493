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
 * Catch-up: loads {@code records} records, then reads the color from SN 0 to its end with a fresh
 * reader, like Kafka's ConsumerPerformance over a topic written beforehand.
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
    long start = System.nanoTime();
    long read = reader.equals("stream") ? readStream() : readConsumer();
    double seconds = (System.nanoTime() - start) / 1e9;
    out.printf(
        "catch-up (%s): %,d records in %.2f s: %,.0f records/s, %.1f MB/s%n",
        reader, read, seconds, read / seconds, read * (double) recordBytes / seconds / 1e6);
    out.flush();
    return read == records ? 0 : 1;
  }

  private void load() throws InterruptedException {
    try (FlexLog log = FlexLog.connect(bootstrap)) {
      long start = System.nanoTime();
      Loader.load(log, color, records, recordBytes);
      double loadS = (System.nanoTime() - start) / 1e9;
      out.printf("loaded %,d records in %.1f s (%,.0f rec/s)%n", records, loadS, records / loadS);
      out.flush();
    }
  }

  private long readConsumer() {
    Map<String, Object> settings =
        Map.of(
            "bootstrap.servers", bootstrap,
            "auto.offset.reset", "earliest",
            "max.poll.records", "2000");
    try (FlexLogConsumer<byte[], byte[]> consumer =
        new FlexLogConsumer<>(ConsumerConfig.fromMap(settings), null, null)) {
      consumer.assign(List.of(ColorShard.wholeColor(color)));
      long read = 0;
      long idleSince = System.nanoTime();
      while (read < records && System.nanoTime() - idleSince < 10_000_000_000L) {
        int n = consumer.poll(Duration.ofMillis(100)).count();
        if (n > 0) {
          read += n;
          idleSince = System.nanoTime();
        }
      }
      return read;
    }
  }

  private long readStream() {
    try (FlexLog log = FlexLog.connect(bootstrap);
        RecordStream stream = log.subscribe(color, 0)) {
      long read = 0;
      while (read < records && stream.poll(Duration.ofSeconds(10)) != null) {
        read++;
      }
      return read;
    }
  }
}
