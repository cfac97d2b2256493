package io.flexlog.server.cli;

import io.flexlog.server.control.AdminClient;
import java.time.Duration;
import picocli.CommandLine.Option;

/** Options of the commands that talk to the admin service. */
final class AdminOptions {
  @Option(
      names = "--admin",
      paramLabel = "HOST:PORT",
      defaultValue = "127.0.0.1:7090",
      description =
          "host:port of the admin service (default: ${DEFAULT-VALUE}, the dev cluster's).")
  String admin;

  @Option(
      names = "--timeout-ms",
      paramLabel = "MS",
      defaultValue = "10000",
      description = "Operation timeout in ms (default: ${DEFAULT-VALUE}).")
  long timeoutMs;

  AdminClient connect() {
    if (timeoutMs <= 0) {
      throw new IllegalArgumentException("--timeout-ms must be > 0");
    }
    return AdminClient.connect(admin, Duration.ofMillis(timeoutMs));
  }
}
