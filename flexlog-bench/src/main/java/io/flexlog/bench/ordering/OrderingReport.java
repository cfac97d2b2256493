package io.flexlog.bench.ordering;

import io.flexlog.bench.report.JsonReport;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The results of {@code flexlog bench ordering} as text (stdout) and as one JSON object. Every
 * result line starts with its side's label ({@code flexlog loopback}, {@code flexlog in-process},
 * {@code ratis counter}); when both FlexLog and Ratis produced valid numbers the text ends with
 * {@code ratio flexlog/ratis = X}, the throughput of the first FlexLog variant over Ratis', two
 * decimals.
 *
 * @param commonPoolParallelism threads of the JVM's common ForkJoinPool (see {@link CommonPool})
 * @param flexlog one result per FlexLog placement, in run order; the first is the one compared
 * @param ratis the Ratis counter's result, when it ran
 */
public record OrderingReport(
    OrderingSettings settings,
    int commonPoolParallelism,
    List<SideResult> flexlog,
    Optional<SideResult> ratis) {

  public OrderingReport {
    flexlog = List.copyOf(flexlog);
    if (flexlog.isEmpty()) {
      throw new IllegalArgumentException("a report needs at least one FlexLog result");
    }
  }

  /** Whether every side ran without failure, measured SNs and got them in order. */
  public boolean allValid() {
    return flexlog.stream().allMatch(SideResult::isValid)
        && ratis.map(SideResult::isValid).orElse(true);
  }

  /** FlexLog's throughput over Ratis', when both sides are valid. */
  public Optional<Double> ratio() {
    return ratio(flexlog.get(0));
  }

  private Optional<Double> ratio(SideResult side) {
    if (ratis.isEmpty() || !ratis.get().isValid() || !side.isValid()) {
      return Optional.empty();
    }
    return Optional.of(side.snsPerSec() / ratis.get().snsPerSec());
  }

  /** The ratio line as printed last. */
  public static String ratioLine(double ratio) {
    return String.format(Locale.ROOT, "ratio flexlog/ratis = %.2f", ratio);
  }

  public String text() {
    OrderingSettings s = settings;
    StringBuilder out = new StringBuilder(1024);
    out.append("FlexLog ordering layer benchmark\n");
    out.append(
        fmt(
            "  load          %d clients x %d outstanding order requests; %s measured after %s"
                + " warm-up\n",
            s.clients(),
            s.outstanding(),
            seconds(s.duration().toNanos()),
            seconds(s.warmup().toNanos())));
    out.append(fmt("  color         %s\n", describeColor(s)));
    if (ratis.isPresent()) {
      out.append(
          fmt(
              "  compared      %s vs %s: not equal guarantees, the numbers are not a like-for-like"
                  + " comparison (see each side's guarantee line)\n",
              flexlog.get(0).label(), ratis.get().label()));
      out.append(
          fmt(
              "  jvm           %d CPUs, common ForkJoinPool parallelism %d\n",
              Runtime.getRuntime().availableProcessors(), commonPoolParallelism));
    }
    for (SideResult side : flexlog) {
      appendSide(out, side, guarantee(side));
    }
    ratis.ifPresent(side -> appendSide(out, side, guarantee(side)));
    if (flexlog.size() > 1) {
      for (SideResult side : flexlog.subList(1, flexlog.size())) {
        ratio(side).ifPresent(r -> out.append(fmt("ratio %s/ratis = %.2f\n", side.label(), r)));
      }
    }
    ratio().ifPresent(r -> out.append(ratioLine(r)).append('\n'));
    return out.toString();
  }

  /**
   * What FlexLog's ordering layer keeps across crashes in this benchmark, printed next to its
   * numbers. No run mode makes it as durable as the Ratis counter: FlexLog's design never persists
   * or replicates the counter (one sequencer per color; a restarted sequencer durably advances its
   * epoch and starts a new SN range above every earlier one, and the replicas hold the records), so
   * an "equal" mode would be a different protocol, not a setting.
   */
  static final String FLEXLOG_GUARANTEE =
      "replication: none (one sequencer per color); durability: only the epoch (fsync'ed once"
          + " per sequencer start), the counter is in memory and a restart begins a new epoch";

  /** What the Ratis counter keeps across crashes with {@code log}, printed next to its numbers. */
  static String ratisGuarantee(RatisLog log) {
    return log == RatisLog.DISK
        ? "replication: "
            + RatisCounterCluster.PEERS
            + " Raft peers, a majority holds every increment; durability: each increment is in"
            + " a majority's disk log (Ratis' default sync policy) before it is answered"
        : "replication: "
            + RatisCounterCluster.PEERS
            + " Raft peers, a majority holds every increment; durability: none (in-memory Raft"
            + " log, nothing survives a restart of a majority)";
  }

  /** What the side labelled {@code label} guarantees; see {@link #FLEXLOG_GUARANTEE}. */
  String guarantee(SideResult side) {
    return side == ratis.orElse(null) ? ratisGuarantee(settings.ratisLog()) : FLEXLOG_GUARANTEE;
  }

  static String describeColor(OrderedColor color) {
    return color == OrderedColor.ROOT
        ? "root: SNs of 'global' (total order; requests climb to the root)"
        : "leaf: SNs of each client's leaf color (partial order; no climbing)";
  }

  private static String describeColor(OrderingSettings s) {
    return s.leaves() == 0
        ? "global, ordered by the root the clients talk to"
        : describeColor(s.color());
  }

  private static void appendSide(StringBuilder out, SideResult side, String guarantee) {
    String label = fmt("%-20s", side.label());
    out.append(label).append(" setup    ").append(side.description()).append('\n');
    out.append(label).append(" guarantee ").append(guarantee).append('\n');
    if (side.failure().isPresent() && side.sns() == 0) {
      out.append(label).append(" FAILED   ").append(side.failure().get()).append('\n');
      return;
    }
    out.append(label)
        .append(
            fmt(
                " result   %.1f SNs/s  latency us p50 %.1f  p99 %.1f  p99.9 %.1f  max %.1f"
                    + "  (%d SNs in %s)\n",
                side.snsPerSec(),
                side.p50Us(),
                side.p99Us(),
                side.p999Us(),
                side.maxUs(),
                side.sns(),
                seconds(side.elapsedNs())));
    if (side.orderViolations() > 0) {
      out.append(label)
          .append(
              fmt(
                  " INVALID  %d SNs were not larger than the client's previous SN\n",
                  side.orderViolations()));
    }
    side.failure().ifPresent(f -> out.append(label).append(" FAILED   ").append(f).append('\n'));
  }

  /** Every number as one JSON object; the ratio is null when it was not computed. */
  public String json() {
    OrderingSettings s = settings;
    StringBuilder out = new StringBuilder(1024).append('{');
    field(out, "benchmark", JsonReport.quote("ordering"));
    field(out, "leaves", Integer.toString(s.leaves()));
    field(out, "height", Integer.toString(s.height()));
    field(out, "clients", Integer.toString(s.clients()));
    field(out, "outstanding", Integer.toString(s.outstanding()));
    field(out, "color", JsonReport.quote(s.color().cliName()));
    field(out, "clientThreads", Integer.toString(s.clientThreads()));
    field(out, "cpus", Integer.toString(Runtime.getRuntime().availableProcessors()));
    field(out, "commonPoolParallelism", Integer.toString(commonPoolParallelism));
    field(out, "warmupSeconds", decimal(s.warmup().toNanos() / 1e9));
    field(out, "durationSeconds", decimal(s.duration().toNanos() / 1e9));
    StringBuilder sides = new StringBuilder("[");
    for (SideResult side : flexlog) {
      sides.append(side(side)).append(',');
    }
    sides.setLength(sides.length() - 1);
    field(out, "flexlog", sides.append(']').toString());
    field(out, "ratis", ratis.map(OrderingReport::side).orElse("null"));
    if (s.vsRatis()) {
      field(out, "ratisLog", JsonReport.quote(s.ratisLog().cliName()));
      field(out, "ratisRequests", JsonReport.quote(s.ratisRequests().cliName()));
    }
    field(out, "ratio", ratio().map(OrderingReport::decimal).orElse("null"));
    out.setLength(out.length() - 1);
    return out.append('}').toString();
  }

  private static String side(SideResult r) {
    StringBuilder out = new StringBuilder(256).append('{');
    field(out, "label", JsonReport.quote(r.label()));
    field(out, "description", JsonReport.quote(r.description()));
    field(out, "sns", Long.toString(r.sns()));
    field(out, "elapsedSeconds", decimal(r.elapsedNs() / 1e9));
    field(out, "snsPerSec", decimal(r.snsPerSec()));
    field(
        out,
        "latencyUs",
        fmt(
            "{\"p50\":%s,\"p99\":%s,\"p999\":%s,\"max\":%s}",
            decimal(r.p50Us()), decimal(r.p99Us()), decimal(r.p999Us()), decimal(r.maxUs())));
    field(out, "orderViolations", Long.toString(r.orderViolations()));
    field(out, "valid", Boolean.toString(r.isValid()));
    field(out, "failure", r.failure().map(JsonReport::quote).orElse("null"));
    out.setLength(out.length() - 1);
    return out.append('}').toString();
  }

  private static void field(StringBuilder out, String name, String jsonValue) {
    out.append('"').append(name).append("\":").append(jsonValue).append(',');
  }

  private static String decimal(double value) {
    return fmt("%.3f", value);
  }

  private static String seconds(long nanos) {
    return fmt("%.3f s", nanos / 1e9);
  }

  private static String fmt(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }
}
