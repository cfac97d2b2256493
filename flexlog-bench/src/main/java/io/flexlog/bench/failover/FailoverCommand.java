package io.flexlog.bench.failover;

import io.flexlog.bench.cli.BenchmarkCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "failover",
    mixinStandardHelpOptions = true,
    description = {
      "Kill global's sequencer leader N times under append load on a dev --processes cluster.",
      "Reports each unavailability window (last ack before the kill to the first after it: p50,",
      "p99, max) and checks that every acknowledged append is readable."
    })
public final class FailoverCommand extends BenchmarkCommand<FailoverSettings> {
  @Option(
      names = "--kills",
      defaultValue = "20",
      description = "Kills (default: ${DEFAULT-VALUE}).")
  int kills;

  @Option(
      names = "--rate",
      defaultValue = "200",
      description = "Appends per second (default: ${DEFAULT-VALUE}).")
  int rate;

  @Option(
      names = "--port",
      defaultValue = "7170",
      description = "First node port; admin services from --port + 20 (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(
      names = "--settle",
      defaultValue = "2s",
      converter = io.flexlog.bench.cli.DurationConverter.class,
      description = "Steady load before each kill (default: ${DEFAULT-VALUE}).")
  Duration settle;

  @Option(names = "--data", description = "Data directory (default: a new temporary one).")
  Path data;

  public FailoverCommand() {
    super(FailoverBenchmark::run);
  }

  @Override
  protected FailoverSettings settings() {
    checkRange("--kills", kills, 1, 1000);
    checkRange("--rate", rate, 1, 10_000);
    checkRange("--port", port, 1, 65535 - 30);
    Path dir = data;
    if (dir == null) {
      try {
        dir = Files.createTempDirectory("flexlog-failover-");
      } catch (java.io.IOException e) {
        throw bad("cannot create a temporary data directory: " + e.getMessage());
      }
    }
    return new FailoverSettings(dir, port, kills, rate, settle, Duration.ofSeconds(30));
  }
}
