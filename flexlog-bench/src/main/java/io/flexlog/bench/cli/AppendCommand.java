package io.flexlog.bench.cli;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code flexlog bench append}: parses and validates the arguments, then hands an {@link
 * AppendSettings} to the benchmark. A bad argument is a {@link ParameterException}, which picocli
 * prints with the usage and turns into exit code 2.
 */
@Command(
    name = "append",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Closed-loop append load: each client keeps exactly one append outstanding and issues the"
          + " next as soon as it completes. Prints throughput and latency percentiles.",
      "Exit codes: 0 done, 1 the run failed (more than 1%% of appends failed, or the cluster"
          + " could not be used), 2 bad arguments."
    })
public final class AppendCommand extends BenchmarkCommand<AppendSettings> {
  static final int MAX_CLIENTS = 100_000;
  static final int DEFAULT_MAX_CONNECTIONS = 4;

  @Option(
      names = "--bootstrap",
      paramLabel = "HOST:PORT",
      defaultValue = "127.0.0.1:7070",
      description = "Comma-separated host:port of any cluster nodes (default: ${DEFAULT-VALUE}).")
  private String bootstrap;

  @Option(
      names = "--color",
      paramLabel = "NAME",
      defaultValue = "global",
      description = "Color to append to (default: ${DEFAULT-VALUE}).")
  private String color;

  @Option(
      names = "--clients",
      paramLabel = "N",
      required = true,
      description =
          "Concurrent clients, each with one append outstanding (1.." + MAX_CLIENTS + ").")
  private int clients;

  @Option(
      names = "--record-bytes",
      paramLabel = "B",
      required = true,
      description = "Payload size of every append, in bytes (>= 1).")
  private int recordBytes;

  @ArgGroup(exclusive = true, multiplicity = "1")
  private Length length;

  @Option(
      names = "--warmup",
      paramLabel = "D",
      defaultValue = "2s",
      converter = DurationConverter.class,
      description =
          "Time before measuring; its appends are not counted (default: ${DEFAULT-VALUE}).")
  private Duration warmup;

  @Option(
      names = "--connections",
      paramLabel = "K",
      description =
          "Client instances to spread the clients over, each with its own connections and event"
              + " loop (1..N, default: min(N, "
              + DEFAULT_MAX_CONNECTIONS
              + ")).")
  private Integer connections;

  @Mixin private JsonFileOption json;

  /** The command as the launcher runs it: against a real cluster. */
  public AppendCommand() {
    this(AppendBenchmark::run);
  }

  AppendCommand(Runner<AppendSettings> runner) {
    super(runner);
  }

  /** The measurement's length: a time or a number of appends. */
  static final class Length {
    @Option(
        names = "--duration",
        paramLabel = "D",
        required = true,
        converter = DurationConverter.class,
        description = "Measure for this long, e.g. 500ms, 10s, 2m.")
    Duration duration;

    @Option(
        names = "--count",
        paramLabel = "N",
        required = true,
        description = "Measure this many appends.")
    Long count;
  }

  @Override
  protected AppendSettings settings() {
    checkBootstrap(bootstrap);
    if (color.isBlank()) {
      throw bad("--color must not be blank");
    }
    checkRange("--clients", clients, 1, MAX_CLIENTS);
    if (recordBytes < 1) {
      throw bad("--record-bytes must be at least 1, got " + recordBytes);
    }
    int k = connections == null ? Math.min(clients, DEFAULT_MAX_CONNECTIONS) : connections;
    if (k < 1 || k > clients) {
      throw bad("--connections must be between 1 and --clients (" + clients + "), got " + k);
    }
    Optional<Duration> duration = Optional.ofNullable(length.duration);
    duration.ifPresent(d -> checkLongerThanZero("--duration", d));
    OptionalLong count =
        length.count == null ? OptionalLong.empty() : OptionalLong.of(length.count);
    if (count.isPresent() && count.getAsLong() < 1) {
      throw bad("--count must be at least 1, got " + count.getAsLong());
    }
    return new AppendSettings(
        bootstrap.trim(),
        color.trim(),
        clients,
        k,
        recordBytes,
        duration,
        count,
        warmup,
        json.file());
  }
}
