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
          + " event loop), so T threads are T independent logs; RocksDB: T threads on one shared"
          + " database, as Boki uses it";

  private StorageReport() {}

  /** What the run is about to do, printed before it starts. */
  public static String header(StorageSettings s) {
    StringBuilder out = new StringBuilder(512);
    out.append("FlexLog storage vs RocksDB\n");
    line(
        out,
        "workload",
        fmt(
            "%d B records, %d thread%s, %d %% reads (uniform over the records written so far)",
            s.recordBytes(), s.threads(), s.threads() == 1 ? "" : "s", s.readPercent()));
    line(out, "durability", durability(s.durability()));
    line(
        out,
        "timing",
        fmt(
            "%.1f s measured per thread after %.1f s warm-up; %d records preloaded per thread",
            s.duration().toNanos() / 1e9, s.warmup().toNanos() / 1e9, s.preloadRecords()));
    line(out, "threads", THREAD_MODEL);
    line(
        out,
        "flexlog log",
        s.engine()
            + ", "
            + DataSize.format(s.logBytes())
            + " per thread; a full log is replaced by an empty one with the thread's clock"
            + " stopped (the benchmark never trims, so the log cannot reuse its space)");
    s.engineNotice().ifPresent(n -> line(out, "notice", n));
    line(
        out,
        "data",
        "in a temporary directory under " + s.dataDir().toAbsolutePath() + ", deleted afterwards");
    return out.toString();
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
    if (e.logRecycles() > 0) {
      line(
          out,
          "full logs",
          fmt(
              "%d replaced by empty ones (%.3f s, not measured)",
              e.logRecycles(), e.recycleSeconds()));
    }
    line(out, "verified", fmt("%,d records read back identical", e.verifiedRecords()));
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
    field(out, "threadModel", JsonReport.quote(THREAD_MODEL));
    field(out, "flexlog", engineJson(r.flexlog(), "engine", JsonReport.quote(s.engine())));
    field(
        out,
        "rocksdb",
        engineJson(
            r.rocksdb(), "sync", Boolean.toString(s.durability() != DurabilityMode.PROCESS)));
    field(out, "ratio", Double.isFinite(r.ratio()) ? fmt("%.2f", r.ratio()) : "null");
    out.setLength(out.length() - 1);
    return out.append('}').toString();
  }

  private static String engineJson(EngineResult e, String extraName, String extraValue) {
    StringBuilder out = new StringBuilder(512).append('{');
    field(out, extraName, extraValue);
    field(out, "description", JsonReport.quote(e.description()));
    field(out, "opsPerSec", decimal(e.opsPerSec()));
    field(out, "appendsPerSec", decimal(e.appendsPerSec()));
    field(out, "readsPerSec", decimal(e.readsPerSec()));
    field(out, "appends", Long.toString(e.appends()));
    field(out, "reads", Long.toString(e.reads()));
    field(out, "measuredSeconds", decimal(e.measuredSeconds()));
    field(out, "appendLatencyUs", latencyJson(e.appendLatency()));
    field(out, "readLatencyUs", latencyJson(e.readLatency()));
    field(out, "logRecycles", Long.toString(e.logRecycles()));
    field(out, "recycleSeconds", decimal(e.recycleSeconds()));
    field(out, "verifiedRecords", Long.toString(e.verifiedRecords()));
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
