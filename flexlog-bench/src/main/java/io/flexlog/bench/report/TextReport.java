package io.flexlog.bench.report;

import java.util.Locale;

/** Formats a {@link BenchReport} as the human-readable summary printed on stdout. */
public final class TextReport {
  private TextReport() {}

  public static String format(BenchReport r) {
    RunSetup s = r.setup();
    StringBuilder out = new StringBuilder(512);
    out.append("FlexLog append benchmark\n");
    line(out, "cluster", s.bootstrap() + ", color " + s.color());
    line(out, "clients", s.clients() + " over " + s.connections() + " connections");
    line(out, "record bytes", Integer.toString(s.recordBytes()));
    line(
        out,
        "duration",
        fmt(
            "%.3f s measured after %.3f s warm-up",
            r.elapsedNs() / 1e9, s.warmup().toNanos() / 1e9));
    line(out, "appends", Long.toString(r.appends()));
    line(out, "errors", fmt("%d (%.2f %%)", r.errors(), r.errorRatio() * 100));
    line(
        out,
        "throughput",
        fmt("%.1f appends/s, %.2f MB/s", r.appendsPerSec(), r.megabytesPerSec()));
    line(
        out,
        "latency (us)",
        fmt("p50 %d  p99 %d  p99.9 %d  max %d", r.p50Us(), r.p99Us(), r.p999Us(), r.maxUs()));
    r.firstError().ifPresent(e -> line(out, "first error", e));
    return out.toString();
  }

  private static void line(StringBuilder out, String label, String value) {
    out.append("  ").append(String.format(Locale.ROOT, "%-13s", label)).append(value).append('\n');
  }

  private static String fmt(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }
}
