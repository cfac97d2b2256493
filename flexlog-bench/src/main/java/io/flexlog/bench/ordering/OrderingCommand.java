package io.flexlog.bench.ordering;

import io.flexlog.bench.cli.BenchmarkCommand;
import io.flexlog.bench.cli.DurationConverter;
import io.flexlog.bench.cli.JsonFileOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code flexlog bench ordering}: parses and validates the arguments, then hands {@link
 * OrderingSettings} to the benchmark. A bad argument is a {@link ParameterException}, which picocli
 * prints with the usage and turns into exit code 2.
 */
@Command(
    name = "ordering",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Ordering-layer throughput (SNs/s) and order-request latency (paper section 9.3): starts a"
          + " tree of sequencer nodes in this process on 127.0.0.1 and drives it with closed-loop"
          + " clients that act like replicas (HELLO, ORDER_REQUEST, ORDER_RESPONSE), storing"
          + " nothing. With --vs ratis, then runs the same load against a counter replicated by"
          + " Apache Ratis (3 peers on loopback) and prints, last, 'ratio flexlog/ratis = X'.",
      "Exit codes: 0 done, 1 a side failed (an error, SNs out of order, answers missing),"
          + " 2 bad arguments."
    })
public final class OrderingCommand extends BenchmarkCommand<OrderingSettings> {
  static final int MAX_LEAVES = 64;
  static final int MAX_HEIGHT = 16;
  static final int MAX_CLIENTS = 1024;
  static final int MAX_OUTSTANDING = 4096;

  @Option(
      names = "--leaves",
      paramLabel = "N",
      required = true,
      description =
          "Leaf sequencers under the root (0.."
              + MAX_LEAVES
              + "). 0: no tree, the clients talk to the root sequencer directly.")
  private int leaves;

  @Option(
      names = "--clients",
      paramLabel = "C",
      required = true,
      description =
          "Closed-loop clients, each the only replica of its own shard, spread round robin over"
              + " the leaves (1.."
              + MAX_CLIENTS
              + ", at least --leaves).")
  private int clients;

  @Option(
      names = "--duration",
      paramLabel = "D",
      required = true,
      converter = DurationConverter.class,
      description = "Measure for this long, e.g. 500ms, 10s, 2m.")
  private Duration duration;

  @Option(
      names = "--warmup",
      paramLabel = "D",
      defaultValue = "2s",
      converter = DurationConverter.class,
      description = "Run this long before measuring (default: ${DEFAULT-VALUE}).")
  private Duration warmup;

  @Option(
      names = "--outstanding",
      paramLabel = "W",
      defaultValue = "32",
      description =
          "Order requests each client keeps in flight (1.."
              + MAX_OUTSTANDING
              + ", default: ${DEFAULT-VALUE}); the same for Ratis.")
  private int outstanding;

  @Option(
      names = "--height",
      paramLabel = "H",
      description =
          "Levels from the root to the deepest sequencer, root included (1.."
              + MAX_HEIGHT
              + "; default 2, or 1 with --leaves 0). Each leaf becomes a chain of H-1 sequencers"
              + " under the root; --leaves 1 --height H is the chain of Fig. 9, and --height 1"
              + " is the root alone (the clients talk to it directly, as with --leaves 0).")
  private Integer height;

  @Option(
      names = "--color",
      paramLabel = "root|leaf",
      defaultValue = "root",
      description =
          "root: ask SNs of 'global' from the deepest level (total order, climbs the tree);"
              + " leaf: ask SNs of the color each client's shard is attached to (partial order)."
              + " Default: ${DEFAULT-VALUE}.")
  private String color;

  @Option(
      names = "--placement",
      paramLabel = "loopback|in-process|both",
      defaultValue = "loopback",
      description =
          "loopback: one sequencer node per role, roles talk over loopback TCP; in-process: one"
              + " sequencer node hosts every role; both: loopback, then in-process."
              + " Default: ${DEFAULT-VALUE}.")
  private String placement;

  @Option(
      names = "--vs",
      paramLabel = "ratis",
      description = "Also run the same load against a counter replicated by Apache Ratis.")
  private String versus;

  @Option(
      names = "--ratis-log",
      paramLabel = "disk|memory",
      description =
          "The Ratis peers' log: disk (segmented log, Ratis' default sync policy; the default)"
              + " or memory.")
  private String ratisLog;

  @Option(
      names = "--ratis-requests",
      paramLabel = "batched|single",
      description =
          "How the Ratis clients ask for SNs: batched (the default: one request per answered"
              + " batch, the batching FlexLog's clients do, one Raft entry per batch) or single"
              + " (one request and one Raft entry per SN).")
  private String ratisRequests;

  @Option(
      names = "--client-threads",
      paramLabel = "T",
      description =
          "Event-loop threads of the FlexLog load clients (1..--clients, default: min(C, CPUs)).")
  private Integer clientThreads;

  @Mixin private JsonFileOption json;

  /** The command as the launcher runs it. */
  public OrderingCommand() {
    this(OrderingBenchmark::run);
  }

  OrderingCommand(Runner<OrderingSettings> runner) {
    super(runner);
  }

  @Override
  protected OrderingSettings settings() {
    checkRange("--leaves", leaves, 0, MAX_LEAVES);
    checkRange("--clients", clients, 1, MAX_CLIENTS);
    int levels = height(leaves);
    // A chain of height - 1 = 0 sequencers under the root is no leaf at all: --leaves N --height 1
    // is the root alone, the first point of the latency-vs-height series (Fig. 9 right).
    int leafCount = levels == 1 ? 0 : leaves;
    if (clients < leafCount) {
      throw bad(
          "--clients ("
              + clients
              + ") must be at least --leaves ("
              + leaves
              + ") so that every leaf has a client");
    }
    checkRange("--outstanding", outstanding, 1, MAX_OUTSTANDING);
    checkLongerThanZero("--duration", duration);
    OrderedColor orderedColor = parse("--color", color, OrderedColor.values());
    if (leafCount == 0 && orderedColor == OrderedColor.LEAF) {
      throw bad(
          leaves == 0
              ? "--color leaf needs --leaves >= 1: with --leaves 0 the only color is global"
              : "--color leaf needs --height >= 2: with --height 1 the only color is global");
    }
    List<Placement> placements =
        placement.trim().equalsIgnoreCase("both")
            ? List.of(Placement.LOOPBACK, Placement.IN_PROCESS)
            : List.of(parse("--placement", placement, Placement.values()));
    boolean vsRatis = versus != null;
    if (vsRatis && !versus.trim().equalsIgnoreCase("ratis")) {
      throw bad("--vs: the only peer is 'ratis', got '" + versus + "'");
    }
    if (ratisLog != null && !vsRatis) {
      throw bad("--ratis-log needs --vs ratis");
    }
    if (ratisRequests != null && !vsRatis) {
      throw bad("--ratis-requests needs --vs ratis");
    }
    RatisLog log =
        ratisLog == null ? RatisLog.DISK : parse("--ratis-log", ratisLog, RatisLog.values());
    RatisRequests requests =
        ratisRequests == null
            ? RatisRequests.BATCHED
            : parse("--ratis-requests", ratisRequests, RatisRequests.values());
    int threads =
        clientThreads == null
            ? Math.min(clients, Runtime.getRuntime().availableProcessors())
            : clientThreads;
    if (threads < 1 || threads > clients) {
      throw bad(
          "--client-threads must be between 1 and --clients (" + clients + "), got " + threads);
    }
    Optional<Path> jsonFile = json.file();
    return new OrderingSettings(
        leafCount,
        levels,
        clients,
        outstanding,
        duration,
        warmup,
        orderedColor,
        placements,
        vsRatis,
        log,
        requests,
        threads,
        jsonFile);
  }

  private int height(int leaves) {
    if (leaves == 0) {
      if (height != null && height != 1) {
        throw bad("--height " + height + " needs --leaves >= 1: with --leaves 0 the height is 1");
      }
      return 1;
    }
    int levels = height == null ? 2 : height;
    checkRange("--height", levels, 1, MAX_HEIGHT);
    return levels;
  }

  private <E extends Enum<E> & CliValue> E parse(String option, String value, E[] values) {
    StringBuilder accepted = new StringBuilder();
    for (E candidate : values) {
      String name = candidate.cliName();
      if (name.equalsIgnoreCase(value.trim())) {
        return candidate;
      }
      accepted.append(accepted.length() == 0 ? "" : ", ").append(name);
    }
    if (option.equals("--placement")) {
      accepted.append(", both");
    }
    throw bad(option + ": expected one of " + accepted + ", got '" + value + "'");
  }
}
