package io.flexlog.bench.storage;

import io.flexlog.bench.report.JsonReport;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.server.config.DataSize;
import java.util.Locale;

/**
 * Formats a storage comparison: the header printed before the run, the human-readable results
 * ending with the ratio line, and one JSON object with the same numbers.
 */
public final class StorageReport {
  /** How threads map onto each engine, printed and written to JSON with every run. */
  public static final String THREAD_MODEL =
      "FlexLog: one log per thread (a log has one owner thread, as a replica runs its log on its"
          + " event loop), so T threads are T independent logs; RocksDB: one database per thread, so T"
          + " threads are T independent databases";

  private StorageReport() {}

  /** What the run is about to do, printed before it starts. */
  public static String header(StorageSettings s) {
    StringBuilder out = new StringBuilder(512);
    out.append("FlexLog storage vs RocksDB\n");
    line(
        out,
        "workload",
        fmt(
            "%d B records, %d thread%s, %d %% reads (uniform over the newest %,d records written,"
                + " the same key range on both engines)",
            s.recordBytes(),
            s.threads(),
            s.threads() == 1 ? "" : "s",
            s.readPercent(),
            s.readWindowRecords()));
    line(out, "durability", durability(s.durability()));
    line(
        out,
        "timing",
        fmt(
            "%.1f s measured per thread after %.1f s warm-up; %d records preloaded per thread;"
                + " wall-clock time, every second counted on both engines (FlexLog's trims"
                + " included)",
            s.duration().toNanos() / 1e9, s.warmup().toNanos() / 1e9, s.preloadRecords()));
    line(out, "threads", THREAD_MODEL);
    line(out, "flexlog log", flexlogLog(s));
    s.engineNotice().ifPresent(n -> line(out, "notice", n));
    line(
        out,
        "data",
        "in a temporary directory under " + s.dataDir().toAbsolutePath() + ", deleted afterwards");
    return out.toString();
  }

  /** The setup line of FlexLog's engine: which engine, its sizes and the durability mode. */
  static String flexlogLog(StorageSettings s) {
    String full =
        "; a full log trims its oldest half (LogStorage.trim frees their PM chunks"
            + (s.tiered().isPresent() ? " and SSD segments" : "")
            + ") with the thread's clock running";
    if (s.tiered().isEmpty()) {
      return "engine="
          + s.engine()
          + " durability="
          + s.durability().configName()
          + " log-bytes="
          + DataSize.format(s.logBytes())
          + " per thread"
          + full;
    }
    TieredOptions t = s.tiered().get();
    return "engine=tiered pm-engine="
        + s.engine()
        + " cache-bytes="
        + DataSize.format(t.cacheBytes())
        + " pm-bytes="
        + DataSize.format(t.pmBytes())
        + " durability="
        + s.durability().configName()
        + " log-bytes="
        + DataSize.format(s.logBytes())
        + " per thread (cache, then PM, then SSD segments; PM above the 0.75 watermark moves to"
        + " SSD)"
        + full;
  }

  static String durability(DurabilityMode mode) {
    return switch (mode) {
      case PROCESS ->
          "process: FlexLog flushes each append into a shared file mapping (survives"
              + " a process crash); RocksDB writes the WAL without sync (sync=false)";
      case FSYNC ->
          "fsync: FlexLog msyncs each append (survives a machine crash); RocksDB syncs"
              + " the WAL on every put (sync=true)";
      case PMEM ->
          "pmem: FlexLog flushes each append to persistent memory (survives a machine"
              + " crash); RocksDB syncs the WAL on every put (sync=true)";
    };
  }

  /** The results, one block per engine, ending with {@link ComparisonResult#ratioLine()}. */
  public static String text(ComparisonResult r) {
    StringBuilder out = new StringBuilder(1024);
    engine(out, r.flexlog(), r.settings().readPercent() > 0);
    engine(out, r.rocksdb(), r.settings().readPercent() > 0);
    out.append(r.ratioLine()).append('\n');
    return out.toString();
  }

  private static void engine(StringBuilder out, EngineResult e, boolean reads) {
    out.append(e.name()).append(": ").append(e.description()).append('\n');
    line(
        out,
        "throughput",
        fmt(
            "%,.1f ops/s (appends %,.1f/s, reads %,.1f/s); %,d ops in %.3f s",
            e.opsPerSec(),
            e.appendsPerSec(),
            e.readsPerSec(),
            e.operations(),
            e.measuredSeconds()));
    line(out, "append (us)", latency(e.appendLatency()));
    if (reads) {
      line(out, "read (us)", latency(e.readLatency()));
    }
    if (e.logTrims() > 0) {
      line(
          out,
          "full logs",
          fmt(
              "%d trims of the oldest half (%.3f s, counted in the measured time)",
              e.logTrims(), e.trimSeconds()));
    }
    e.tiers().ifPresent(t -> tiers(out, t));
    line(out, "verified", fmt("%,d records read back identical", e.verifiedRecords()));
  }

  private static void tiers(StringBuilder out, TierStats t) {
    line(
        out,
        "cache",
        fmt(
            "%,d hits, %,d misses (hit ratio %s) in the measurement; %s in use at its end",
            t.cacheHits(),
            t.cacheMisses(),
            Double.isNaN(t.hitRatio()) ? "n/a" : fmt("%.1f %%", 100 * t.hitRatio()),
            mib(t.cacheUsedBytes())));
    line(
        out,
        "tiering",
        fmt(
            "%,d segments written (%s of PM chunks moved to SSD) in the measurement; at its end"
                + " %,d segments (%s) on SSD, %s of PM in use",
            t.tieringMoves(),
            mib(t.tieringBytes()),
            t.segments(),
            mib(t.ssdBytes()),
            mib(t.pmUsedBytes())));
    line(
        out,
        "PM full",
        fmt(
            "%,d appends waited for tiering to free PM (%.3f s, part of their latency)",
            t.pmFullWaits(), t.pmFullWaitNanos() / 1e9));
  }

  private static String mib(long bytes) {
    return fmt("%,.1f MiB", bytes / (double) (1 << 20));
  }

  private static String latency(LatencySummary l) {
    return fmt(
        "p50 %.1f  p99 %.1f  p99.9 %.1f  max %.1f  mean %.1f",
        l.p50Us(), l.p99Us(), l.p999Us(), l.maxUs(), l.meanUs());
  }

  /** One JSON object with the settings, both engines' numbers and the ratio. */
  public static String json(ComparisonResult r) {
    StorageSettings s = r.settings();
    StringBuilder out = new StringBuilder(1024).append('{');
    field(out, "recordBytes", Integer.toString(s.recordBytes()));
    field(out, "threads", Integer.toString(s.threads()));
    field(out, "readPercent", Integer.toString(s.readPercent()));
    field(out, "durability", JsonReport.quote(s.durability().configName()));
    field(out, "warmupSeconds", decimal(s.warmup().toNanos() / 1e9));
    field(out, "durationSeconds", decimal(s.duration().toNanos() / 1e9));
    field(out, "preloadRecords", Integer.toString(s.preloadRecords()));
    field(out, "logBytes", Long.toString(s.logBytes()));
    s.tiered().ifPresent(t -> field(out, "pmBytes", Long.toString(t.pmBytes())));
    s.tiered().ifPresent(t -> field(out, "cacheBytes", Long.toString(t.cacheBytes())));
    field(out, "threadModel", JsonReport.quote(THREAD_MODEL));
    field(out, "flexlog", engineJson(r.flexlog(), flexlogSetup(s)));
    field(
        out,
        "rocksdb",
        engineJson(
            r.rocksdb(),
            "\"sync\":" + Boolean.toString(s.durability() != DurabilityMode.PROCESS) + ","));
    field(out, "ratio", Double.isFinite(r.ratio()) ? fmt("%.2f", r.ratio()) : "null");
    out.setLength(out.length() - 1);
    return out.append('}').toString();
  }

  /** The FlexLog engine's settings as JSON fields, each followed by a comma. */
  private static String flexlogSetup(StorageSettings s) {
    StringBuilder out = new StringBuilder(128);
    field(out, "engine", JsonReport.quote(s.engineName()));
    s.tiered()
        .ifPresent(
            t -> {
              field(out, "pmEngine", JsonReport.quote(s.engine()));
              field(out, "pmBytes", Long.toString(t.pmBytes()));
              field(out, "cacheBytes", Long.toString(t.cacheBytes()));
            });
    return out.toString();
  }

  private static String engineJson(EngineResult e, String setupFields) {
    StringBuilder out = new StringBuilder(512).append('{').append(setupFields);
    field(out, "description", JsonReport.quote(e.description()));
    field(out, "opsPerSec", decimal(e.opsPerSec()));
    field(out, "appendsPerSec", decimal(e.appendsPerSec()));
    field(out, "readsPerSec", decimal(e.readsPerSec()));
    field(out, "appends", Long.toString(e.appends()));
    field(out, "reads", Long.toString(e.reads()));
    field(out, "measuredSeconds", decimal(e.measuredSeconds()));
    field(out, "appendLatencyUs", latencyJson(e.appendLatency()));
    field(out, "readLatencyUs", latencyJson(e.readLatency()));
    field(out, "logTrims", Long.toString(e.logTrims()));
    field(out, "trimSeconds", decimal(e.trimSeconds()));
    field(out, "verifiedRecords", Long.toString(e.verifiedRecords()));
    e.tiers().ifPresent(t -> field(out, "tiers", tiersJson(t)));
    out.setLength(out.length() - 1);
    return out.append('}').toString();
  }

  private static String tiersJson(TierStats t) {
    StringBuilder out = new StringBuilder(256).append('{');
    field(out, "cacheHits", Long.toString(t.cacheHits()));
    field(out, "cacheMisses", Long.toString(t.cacheMisses()));
    field(out, "cacheHitRatio", Double.isNaN(t.hitRatio()) ? "null" : fmt("%.4f", t.hitRatio()));
    field(out, "cacheUsedBytes", Long.toString(t.cacheUsedBytes()));
    field(out, "tieringMoves", Long.toString(t.tieringMoves()));
    field(out, "tieringBytes", Long.toString(t.tieringBytes()));
    field(out, "segments", Long.toString(t.segments()));
    field(out, "ssdBytes", Long.toString(t.ssdBytes()));
    field(out, "pmUsedBytes", Long.toString(t.pmUsedBytes()));
    field(out, "pmFullWaits", Long.toString(t.pmFullWaits()));
    field(out, "pmFullWaitSeconds", decimal(t.pmFullWaitNanos() / 1e9));
    out.setLength(out.length() - 1);
    return out.append('}').toString();
  }

  private static String latencyJson(LatencySummary l) {
    return fmt(
        "{\"count\":%d,\"mean\":%.3f,\"p50\":%.3f,\"p99\":%.3f,\"p999\":%.3f,\"max\":%.3f}",
        l.count(), l.meanUs(), l.p50Us(), l.p99Us(), l.p999Us(), l.maxUs());
  }

  private static void field(StringBuilder out, String name, String jsonValue) {
    out.append('"').append(name).append("\":").append(jsonValue).append(',');
  }

  private static void line(StringBuilder out, String label, String value) {
    out.append("  ").append(fmt("%-13s", label)).append(value).append('\n');
  }

  private static String decimal(double value) {
    return fmt("%.3f", value);
  }

  private static String fmt(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }
}
