package io.flexlog.bench.e2e;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.flexlog.bench.report.Json;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import org.HdrHistogram.Histogram;

/**
 * The results of {@code bench e2e}: every color side by side, as text (stdout) and as one JSON
 * object. The last text line, when a root and a leaf color were both measured validly, is {@code
 * ratio root/leaf delivery p50 = X}.
 *
 * @param cluster what ran: the embedded tree with its storage, or the bootstrap address
 */
record E2eReport(E2eSettings settings, String cluster, List<ColorResult> colors) {

  boolean allValid() {
    return !colors.isEmpty() && colors.stream().allMatch(ColorResult::valid);
  }

  /** The first valid root color's delivery p50 over the first valid leaf color's. */
  OptionalDouble rootLeafDeliveryRatio() {
    Optional<ColorResult> root = firstValid("root");
    Optional<ColorResult> leaf = firstValid("leaf");
    if (root.isEmpty() || leaf.isEmpty()) {
      return OptionalDouble.empty();
    }
    long leafP50 = leaf.get().deliveryLatencyUs().getValueAtPercentile(50);
    if (leafP50 == 0) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of(
        root.get().deliveryLatencyUs().getValueAtPercentile(50) / (double) leafP50);
  }

  private Optional<ColorResult> firstValid(String role) {
    return colors.stream().filter(c -> c.role().equals(role) && c.valid()).findFirst();
  }

  String text() {
    StringBuilder out = new StringBuilder();
    out.append("FlexLog end-to-end benchmark: append and subscribe latency per color\n");
    line(out, "  cluster    %s%n", cluster);
    line(
        out,
        "  load       %d producers (%s), %d subscribers per color, %d-byte records;"
            + " %s measured after %s warm-up per color%n",
        settings.producers(),
        settings.loadDescription(),
        settings.subscribers(),
        settings.recordBytes(),
        ColorRun.seconds(settings.duration()),
        ColorRun.seconds(settings.warmup()));
    for (ColorResult c : colors) {
      line(out, "color %s (%s)%n", c.color(), c.role());
      if (c.failure().isPresent()) {
        line(out, "  FAILED     %s%n", c.failure().get());
        continue;
      }
      line(
          out,
          "  append     %10.1f appends/s                %s  (%d acked, %d failed)%n",
          c.appendsPerSec(),
          percentiles(c.appendLatencyUs()),
          c.measuredAppends(),
          c.errors());
      line(
          out,
          "  delivery   %10.1f records/s per subscriber %s%n",
          c.deliveredPerSecPerSubscriber(),
          percentiles(c.deliveryLatencyUs()));
      for (int i = 0; i < c.verifications().size(); i++) {
        Verification v = c.verifications().get(i);
        line(
            out,
            "  verified   subscriber %d: %s%s%n",
            i,
            v.describe(),
            v.unacked() == 0 ? "" : " (+" + v.unacked() + " records of failed appends)");
      }
      if (c.tooManyErrors()) {
        line(
            out,
            "  FAILED     %d appends failed, more than %.0f %%; first error: %s%n",
            c.errors(),
            ColorResult.MAX_ERROR_RATIO * 100,
            c.firstError().orElse("?"));
      }
    }
    OptionalDouble ratio = rootLeafDeliveryRatio();
    if (ratio.isPresent()) {
      line(out, "ratio root/leaf delivery p50 = %.2f%n", ratio.getAsDouble());
    }
    return out.toString();
  }

  String json() {
    ObjectNode out =
        Json.object()
            .put("benchmark", "e2e")
            .put("cluster", cluster)
            .put("producers", settings.producers())
            .put("subscribers", settings.subscribers())
            .put("recordBytes", settings.recordBytes())
            .put("ratePerProducer", settings.ratePerProducer());
    out.set("warmupSeconds", Json.seconds(settings.warmup().toNanos()));
    out.set("durationSeconds", Json.seconds(settings.duration().toNanos()));
    ArrayNode list = out.putArray("colors");
    colors.forEach(c -> list.add(color(c)));
    OptionalDouble ratio = rootLeafDeliveryRatio();
    out.set(
        "ratioRootLeafDeliveryP50", ratio.isPresent() ? Json.decimal(ratio.getAsDouble()) : null);
    out.put("valid", allValid());
    return Json.write(out);
  }

  private static ObjectNode color(ColorResult c) {
    ObjectNode out =
        Json.object()
            .put("color", c.color())
            .put("role", c.role())
            .put("valid", c.valid())
            .put("failure", c.failure().orElse(null))
            .put("appends", c.measuredAppends())
            .put("errors", c.errors())
            .put("firstError", c.firstError().orElse(null));
    out.set("appendsPerSec", Json.decimal(c.appendsPerSec()));
    out.set("deliveredPerSecPerSubscriber", Json.decimal(c.deliveredPerSecPerSubscriber()));
    out.set("appendLatencyUs", latency(c.appendLatencyUs()));
    out.set("deliveryLatencyUs", latency(c.deliveryLatencyUs()));
    ArrayNode subscribers = out.putArray("subscribers");
    for (Verification v : c.verifications()) {
      subscribers
          .addObject()
          .put("passed", v.passed())
          .put("matched", v.matched())
          .put("acked", v.acked())
          .put("missing", v.missing())
          .put("unacked", v.unacked())
          .put("mismatched", v.mismatched())
          .put("orderViolations", v.orderViolations())
          .put("error", v.error().orElse(null));
    }
    return out;
  }

  private static String percentiles(Histogram h) {
    return String.format(
        Locale.ROOT,
        "latency us p50 %d  p99 %d  p99.9 %d  max %d",
        h.getValueAtPercentile(50),
        h.getValueAtPercentile(99),
        h.getValueAtPercentile(99.9),
        h.getMaxValue());
  }

  private static ObjectNode latency(Histogram h) {
    return Json.object()
        .put("p50", h.getValueAtPercentile(50))
        .put("p99", h.getValueAtPercentile(99))
        .put("p999", h.getValueAtPercentile(99.9))
        .put("max", h.getMaxValue())
        .put("count", h.getTotalCount());
  }

  private static void line(StringBuilder out, String format, Object... args) {
    out.append(String.format(Locale.ROOT, format, args));
  }
}
