package io.flexlog.bench.ordering;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.flexlog.bench.report.Json;
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
    ObjectNode out =
        Json.object()
            .put("benchmark", "ordering")
            .put("leaves", s.leaves())
            .put("height", s.height())
            .put("clients", s.clients())
            .put("outstanding", s.outstanding())
            .put("color", s.color().cliName())
            .put("clientThreads", s.clientThreads())
            .put("cpus", Runtime.getRuntime().availableProcessors())
            .put("commonPoolParallelism", commonPoolParallelism);
    out.set("warmupSeconds", Json.seconds(s.warmup().toNanos()));
    out.set("durationSeconds", Json.seconds(s.duration().toNanos()));
    ArrayNode sides = out.putArray("flexlog");
    flexlog.forEach(side -> sides.add(side(side)));
    out.set("ratis", ratis.map(OrderingReport::side).orElse(null));
    if (s.vsRatis()) {
      out.put("ratisLog", s.ratisLog().cliName());
      out.put("ratisRequests", s.ratisRequests().cliName());
    }
    out.set("ratio", ratio().map(Json::decimal).orElse(null));
    return Json.write(out);
  }

  private static ObjectNode side(SideResult r) {
    ObjectNode out =
        Json.object()
            .put("label", r.label())
            .put("description", r.description())
            .put("sns", r.sns());
    out.set("elapsedSeconds", Json.seconds(r.elapsedNs()));
    out.set("snsPerSec", Json.decimal(r.snsPerSec()));
    ObjectNode latency = out.putObject("latencyUs");
    latency.set("p50", Json.decimal(r.p50Us()));
    latency.set("p99", Json.decimal(r.p99Us()));
    latency.set("p999", Json.decimal(r.p999Us()));
    latency.set("max", Json.decimal(r.maxUs()));
    return out.put("orderViolations", r.orderViolations())
        .put("valid", r.isValid())
        .put("failure", r.failure().orElse(null));
  }

  private static String seconds(long nanos) {
    return fmt("%.3f s", nanos / 1e9);
  }

  private static String fmt(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }
}
