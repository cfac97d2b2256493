package io.flexlog.bench.cli;

import io.flexlog.bench.report.RunSetup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The validated arguments of {@code flexlog bench append}. Exactly one of {@code duration} and
 * {@code count} is present.
 */
public record AppendSettings(
    String bootstrap,
    String color,
    int clients,
    int connections,
    int recordBytes,
    Optional<Duration> duration,
    OptionalLong count,
    Duration warmup,
    Optional<Path> json) {

  public RunSetup setup() {
    return new RunSetup(bootstrap, color, clients, connections, recordBytes, warmup);
  }
}
