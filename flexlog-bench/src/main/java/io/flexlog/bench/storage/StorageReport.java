package io.flexlog.bench.storage;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.flexlog.bench.report.Json;
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
    ObjectNode out =
        Json.object()
            .put("recordBytes", s.recordBytes())
            .put("threads", s.threads())
            .put("readPercent", s.readPercent())
            .put("durability", s.durability().configName());
    out.set("warmupSeconds", Json.seconds(s.warmup().toNanos()));
    out.set("durationSeconds", Json.seconds(s.duration().toNanos()));
    out.put("preloadRecords", s.preloadRecords()).put("logBytes", s.logBytes());
    s.tiered().ifPresent(t -> out.put("pmBytes", t.pmBytes()).put("cacheBytes", t.cacheBytes()));
    out.put("threadModel", THREAD_MODEL);
    out.set("flexlog", engineJson(r.flexlog(), flexlogSetup(s)));
    ObjectNode rocksdbSetup = Json.object().put("sync", s.durability() != DurabilityMode.PROCESS);
    out.set("rocksdb", engineJson(r.rocksdb(), rocksdbSetup));
    out.set("ratio", Json.decimal(r.ratio(), 2));
    return Json.write(out);
  }

  /** The FlexLog engine's settings, the first fields of its object. */
  private static ObjectNode flexlogSetup(StorageSettings s) {
    ObjectNode out = Json.object().put("engine", s.engineName());
    s.tiered()
        .ifPresent(
            t ->
                out.put("pmEngine", s.engine())
                    .put("pmBytes", t.pmBytes())
                    .put("cacheBytes", t.cacheBytes()));
    return out;
  }

  /** {@code setup} followed by the engine's numbers. */
  private static ObjectNode engineJson(EngineResult e, ObjectNode setup) {
    ObjectNode out = setup.put("description", e.description());
    out.set("opsPerSec", Json.decimal(e.opsPerSec()));
    out.set("appendsPerSec", Json.decimal(e.appendsPerSec()));
    out.set("readsPerSec", Json.decimal(e.readsPerSec()));
    out.put("appends", e.appends()).put("reads", e.reads());
    out.set("measuredSeconds", Json.decimal(e.measuredSeconds()));
    out.set("appendLatencyUs", latencyJson(e.appendLatency()));
    out.set("readLatencyUs", latencyJson(e.readLatency()));
    out.put("logTrims", e.logTrims());
    out.set("trimSeconds", Json.decimal(e.trimSeconds()));
    out.put("verifiedRecords", e.verifiedRecords());
    e.tiers().ifPresent(t -> out.set("tiers", tiersJson(t)));
    return out;
  }

  private static ObjectNode tiersJson(TierStats t) {
    ObjectNode out =
        Json.object().put("cacheHits", t.cacheHits()).put("cacheMisses", t.cacheMisses());
    out.set("cacheHitRatio", Json.decimal(t.hitRatio(), 4));
    out.put("cacheUsedBytes", t.cacheUsedBytes())
        .put("tieringMoves", t.tieringMoves())
        .put("tieringBytes", t.tieringBytes())
        .put("segments", t.segments())
        .put("ssdBytes", t.ssdBytes())
        .put("pmUsedBytes", t.pmUsedBytes())
        .put("pmFullWaits", t.pmFullWaits());
    out.set("pmFullWaitSeconds", Json.seconds(t.pmFullWaitNanos()));
    return out;
  }

  private static ObjectNode latencyJson(LatencySummary l) {
    ObjectNode out = Json.object().put("count", l.count());
    out.set("mean", Json.decimal(l.meanUs()));
    out.set("p50", Json.decimal(l.p50Us()));
    out.set("p99", Json.decimal(l.p99Us()));
    out.set("p999", Json.decimal(l.p999Us()));
    out.set("max", Json.decimal(l.maxUs()));
    return out;
  }

  private static void line(StringBuilder out, String label, String value) {
    out.append("  ").append(fmt("%-13s", label)).append(value).append('\n');
  }

  private static String fmt(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }
}
