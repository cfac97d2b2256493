package io.flexlog.bench.e2e;

import io.flexlog.bench.cli.BenchmarkCommand;
import io.flexlog.bench.cli.DurationConverter;
import io.flexlog.bench.cli.JsonFileOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code flexlog bench e2e}: parses and validates the arguments, then hands {@link E2eSettings} to
 * the benchmark. A bad argument is a {@link ParameterException}, which picocli prints with the
 * usage and turns into exit code 2.
 */
@Command(
    name = "e2e",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "End-to-end append and subscribe latency per color (paper section 9.1, FlexLog vs"
          + " FlexLog-P): for each color in turn, producers append records stamped with their"
          + " send time while subscribers follow the color from its tail. Prints per color"
          + " appends/s, records/s per subscriber, append latency (send to ack) and delivery"
          + " latency (send to a subscriber's receipt), checks that every subscriber got every"
          + " acked record exactly once in SN order, and ends with 'ratio root/leaf delivery"
          + " p50 = X' when a root and a leaf color were run.",
      "Exit codes: 0 done, 1 a color failed (a check, more than 1%% failed appends, the"
          + " cluster), 2 bad arguments."
    })
public final class E2eCommand extends BenchmarkCommand<E2eSettings> {
  static final int MAX_CLIENTS = 256;
  static final int MAX_RATE = 1_000_000;

  @ArgGroup(exclusive = true, multiplicity = "1")
  private Target target;

  /** Which cluster: a running one or the embedded tree. */
  static final class Target {
    @Option(
        names = "--bootstrap",
        paramLabel = "HOST:PORT",
        required = true,
        description = "Comma-separated host:port of any nodes of a running cluster.")
    String bootstrap;

    @Option(
        names = "--embedded-tree",
        required = true,
        description =
            "Start the cluster of 'flexlog dev --tree' in this process on free ports, in a"
                + " temporary directory, and stop it at the end.")
    boolean embeddedTree;
  }

  @Option(
      names = "--colors",
      paramLabel = "C1,C2",
      defaultValue = "global,left",
      split = ",",
      description = "Colors to measure one after the other (default: ${DEFAULT-VALUE}).")
  private List<String> colors;

  @Option(
      names = "--producers",
      paramLabel = "P",
      defaultValue = "4",
      description =
          "Producer clients per color (1.." + MAX_CLIENTS + ", default: ${DEFAULT-VALUE}).")
  private int producers;

  @Option(
      names = "--subscribers",
      paramLabel = "S",
      defaultValue = "2",
      description =
          "Subscriber clients per color (1.." + MAX_CLIENTS + ", default: ${DEFAULT-VALUE}).")
  private int subscribers;

  @Option(
      names = "--record-bytes",
      paramLabel = "B",
      defaultValue = "1024",
      description =
          "Size of every record (at least "
              + E2ePayloadDescriptor.HEADER_BYTES
              + ": producer, sequence number and send time; default: ${DEFAULT-VALUE}).")
  private int recordBytes;

  @Option(
      names = "--rate",
      paramLabel = "R",
      description =
          "Appends per second per producer (1.."
              + MAX_RATE
              + "); default: closed loop, one append outstanding per producer.")
  private Integer rate;

  @Option(
      names = "--duration",
      paramLabel = "D",
      required = true,
      converter = DurationConverter.class,
      description = "Measure each color this long, e.g. 500ms, 10s, 2m.")
  private Duration duration;

  @Option(
      names = "--warmup",
      paramLabel = "D",
      defaultValue = "2s",
      converter = DurationConverter.class,
      description = "Run each color this long before measuring (default: ${DEFAULT-VALUE}).")
  private Duration warmup;

  @Option(
      names = "--engine",
      paramLabel = "auto|llpl|mapped",
      description = "With --embedded-tree: the replicas' storage engine (default: auto).")
  private String engine;

  @Option(
      names = "--pm-bytes",
      paramLabel = "SIZE",
      description = "With --embedded-tree: PM log capacity per replica (default: 256MiB).")
  private String pmBytes;

  @Mixin private JsonFileOption json;

  /** The command as the launcher runs it. */
  public E2eCommand() {
    this(E2eBenchmark::run);
  }

  E2eCommand(Runner<E2eSettings> runner) {
    super(runner);
  }

  @Override
  protected E2eSettings settings() {
    Optional<String> bootstrap = Optional.ofNullable(target.bootstrap).map(String::trim);
    if (bootstrap.isPresent()) {
      checkBootstrap(bootstrap.get());
      if (engine != null || pmBytes != null) {
        throw bad("--engine and --pm-bytes need --embedded-tree: they configure its replicas");
      }
    }
    List<String> names = new ArrayList<>();
    for (String color : colors) {
      String name = color.trim();
      if (name.isEmpty()) {
        throw bad("--colors: empty color name in " + colors);
      }
      if (names.contains(name)) {
        throw bad("--colors: '" + name + "' is listed twice");
      }
      names.add(name);
    }
    if (names.size() > Short.MAX_VALUE) {
      throw bad("--colors: at most " + Short.MAX_VALUE + " colors, got " + names.size());
    }
    checkRange("--producers", producers, 1, MAX_CLIENTS);
    checkRange("--subscribers", subscribers, 1, MAX_CLIENTS);
    if (recordBytes < E2ePayloadDescriptor.HEADER_BYTES) {
      throw bad(
          "--record-bytes must be at least "
              + E2ePayloadDescriptor.HEADER_BYTES
              + " (the header with producer, sequence number and send time), got "
              + recordBytes);
    }
    if (rate != null) {
      checkRange("--rate", rate, 1, MAX_RATE);
    }
    checkLongerThanZero("--duration", duration);
    if (warmup.isNegative()) {
      throw bad("--warmup must not be negative, got " + warmup);
    }
    long pm = size("--pm-bytes", pmBytes == null ? "256MiB" : pmBytes);
    String storageEngine =
        engine == null ? "auto" : engine.trim().toLowerCase(java.util.Locale.ROOT);
    if (!List.of("auto", "llpl", "mapped").contains(storageEngine)) {
      throw bad("--engine: expected one of auto, llpl, mapped, got '" + engine + "'");
    }
    Optional<Path> jsonFile = json.file();
    return new E2eSettings(
        bootstrap,
        names,
        producers,
        subscribers,
        recordBytes,
        rate == null ? 0 : rate,
        duration,
        warmup,
        storageEngine,
        pm,
        jsonFile);
  }
}
