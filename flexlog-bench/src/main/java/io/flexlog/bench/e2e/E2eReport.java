package io.flexlog.bench.e2e;

import io.flexlog.bench.report.JsonReport;
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
    StringBuilder out = new StringBuilder(1024).append('{');
    field(out, "benchmark", JsonReport.quote("e2e"));
    field(out, "cluster", JsonReport.quote(cluster));
    field(out, "producers", Integer.toString(settings.producers()));
    field(out, "subscribers", Integer.toString(settings.subscribers()));
    field(out, "recordBytes", Integer.toString(settings.recordBytes()));
    field(out, "ratePerProducer", Integer.toString(settings.ratePerProducer()));
    field(out, "warmupSeconds", decimal(settings.warmup().toNanos() / 1e9));
    field(out, "durationSeconds", decimal(settings.duration().toNanos() / 1e9));
    StringBuilder list = new StringBuilder("[");
    for (ColorResult c : colors) {
      list.append(color(c)).append(',');
    }
    if (list.length() > 1) {
      list.setLength(list.length() - 1);
    }
    field(out, "colors", list.append(']').toString());
    OptionalDouble ratio = rootLeafDeliveryRatio();
    field(
        out, "ratioRootLeafDeliveryP50", ratio.isPresent() ? decimal(ratio.getAsDouble()) : "null");
    field(out, "valid", Boolean.toString(allValid()));
    out.setLength(out.length() - 1);
    return out.append('}').toString();
  }

  private static String color(ColorResult c) {
    StringBuilder out = new StringBuilder().append('{');
    field(out, "color", JsonReport.quote(c.color()));
    field(out, "role", JsonReport.quote(c.role()));
    field(out, "valid", Boolean.toString(c.valid()));
    field(out, "failure", c.failure().map(JsonReport::quote).orElse("null"));
    field(out, "appends", Long.toString(c.measuredAppends()));
    field(out, "errors", Long.toString(c.errors()));
    field(out, "firstError", c.firstError().map(JsonReport::quote).orElse("null"));
    field(out, "appendsPerSec", decimal(c.appendsPerSec()));
    field(out, "deliveredPerSecPerSubscriber", decimal(c.deliveredPerSecPerSubscriber()));
    field(out, "appendLatencyUs", latency(c.appendLatencyUs()));
    field(out, "deliveryLatencyUs", latency(c.deliveryLatencyUs()));
    StringBuilder subs = new StringBuilder("[");
    for (Verification v : c.verifications()) {
      subs.append(
              String.format(
                  Locale.ROOT,
                  "{\"passed\":%b,\"matched\":%d,\"acked\":%d,\"missing\":%d,\"unacked\":%d,"
                      + "\"mismatched\":%d,\"orderViolations\":%d,\"error\":%s}",
                  v.passed(),
                  v.matched(),
                  v.acked(),
                  v.missing(),
                  v.unacked(),
                  v.mismatched(),
                  v.orderViolations(),
                  v.error().map(JsonReport::quote).orElse("null")))
          .append(',');
    }
    if (subs.length() > 1) {
      subs.setLength(subs.length() - 1);
    }
    field(out, "subscribers", subs.append(']').toString());
    out.setLength(out.length() - 1);
    return out.append('}').toString();
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

  private static String latency(Histogram h) {
    return String.format(
        Locale.ROOT,
        "{\"p50\":%d,\"p99\":%d,\"p999\":%d,\"max\":%d,\"count\":%d}",
        h.getValueAtPercentile(50),
        h.getValueAtPercentile(99),
        h.getValueAtPercentile(99.9),
        h.getMaxValue(),
        h.getTotalCount());
  }

  private static void line(StringBuilder out, String format, Object... args) {
    out.append(String.format(Locale.ROOT, format, args));
  }

  private static void field(StringBuilder out, String name, String jsonValue) {
    out.append('"').append(name).append("\":").append(jsonValue).append(',');
  }

  private static String decimal(double value) {
    return String.format(Locale.ROOT, "%.3f", value);
  }
}
