package io.flexlog.bench.report;

import java.util.Locale;

/**
 * Formats a {@link BenchReport} as one JSON object with the same numbers as {@link TextReport}, for
 * scripts that collect benchmark runs. Written by hand: the report is flat and small, and the bench
 * jar should not pull in a JSON library for it.
 */
public final class JsonReport {
  private JsonReport() {}

  public static String format(BenchReport r) {
    RunSetup s = r.setup();
    StringBuilder out = new StringBuilder(512).append('{');
    field(out, "bootstrap", quote(s.bootstrap()));
    field(out, "color", quote(s.color()));
    field(out, "clients", Integer.toString(s.clients()));
    field(out, "connections", Integer.toString(s.connections()));
    field(out, "recordBytes", Integer.toString(s.recordBytes()));
    field(out, "warmupSeconds", decimal(s.warmup().toNanos() / 1e9));
    field(out, "durationSeconds", decimal(r.elapsedNs() / 1e9));
    field(out, "appends", Long.toString(r.appends()));
    field(out, "errors", Long.toString(r.errors()));
    field(out, "errorRatio", decimal(r.errorRatio()));
    field(out, "appendsPerSec", decimal(r.appendsPerSec()));
    field(out, "megabytesPerSec", decimal(r.megabytesPerSec()));
    field(out, "latencyUs", latency(r));
    field(out, "firstError", r.firstError().map(JsonReport::quote).orElse("null"));
    out.setLength(out.length() - 1);
    return out.append('}').toString();
  }

  /** A JSON string literal: quotes, backslashes and control characters escaped. */
  public static String quote(String value) {
    StringBuilder out = new StringBuilder(value.length() + 2).append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }

  private static String latency(BenchReport r) {
    return String.format(
        Locale.ROOT,
        "{\"p50\":%d,\"p99\":%d,\"p999\":%d,\"max\":%d}",
        r.p50Us(),
        r.p99Us(),
        r.p999Us(),
        r.maxUs());
  }

  private static void field(StringBuilder out, String name, String jsonValue) {
    out.append('"').append(name).append("\":").append(jsonValue).append(',');
  }

  private static String decimal(double value) {
    return String.format(Locale.ROOT, "%.3f", value);
  }
}
