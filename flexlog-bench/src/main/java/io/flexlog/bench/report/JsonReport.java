package io.flexlog.bench.report;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Formats a {@link BenchReport} as one JSON object with the same numbers as {@link TextReport}, for
 * scripts that collect benchmark runs.
 */
public final class JsonReport {
  private JsonReport() {}

  public static String format(BenchReport r) {
    RunSetup s = r.setup();
    ObjectNode out =
        Json.object()
            .put("bootstrap", s.bootstrap())
            .put("color", s.color())
            .put("clients", s.clients())
            .put("connections", s.connections())
            .put("recordBytes", s.recordBytes());
    out.set("warmupSeconds", Json.seconds(s.warmup().toNanos()));
    out.set("durationSeconds", Json.seconds(r.elapsedNs()));
    out.put("appends", r.appends()).put("errors", r.errors());
    out.set("errorRatio", Json.decimal(r.errorRatio()));
    out.set("appendsPerSec", Json.decimal(r.appendsPerSec()));
    out.set("megabytesPerSec", Json.decimal(r.megabytesPerSec()));
    out.putObject("latencyUs")
        .put("p50", r.p50Us())
        .put("p99", r.p99Us())
        .put("p999", r.p999Us())
        .put("max", r.maxUs());
    out.put("firstError", r.firstError().orElse(null));
    return Json.write(out);
  }
}
