package io.flexlog.server.cli;

import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogConfig;
import java.time.Duration;
import picocli.CommandLine.Option;

/** Options of the commands that act as a client. */
final class ClientOptions {
  @Option(
      names = "--bootstrap",
      paramLabel = "HOST:PORT",
      defaultValue = "127.0.0.1:7070",
      description = "host:port of any node (default: ${DEFAULT-VALUE}).")
  String bootstrap;

  @Option(
      names = "--timeout-ms",
      paramLabel = "MS",
      defaultValue = "10000",
      description = "Operation timeout in ms (default: ${DEFAULT-VALUE}).")
  long timeoutMs;

  FlexLog connect() {
    if (timeoutMs <= 0) {
      throw new IllegalArgumentException("--timeout-ms must be > 0");
    }
    Duration timeout = Duration.ofMillis(timeoutMs);
    return FlexLog.connect(
        FlexLogConfig.builder()
            .bootstrapServers(bootstrap)
            .connectTimeout(timeout)
            .readTimeout(timeout)
            .requestTimeout(Duration.ofMillis(Math.min(2000, timeoutMs)))
            .deliveryTimeout(timeout)
            .build());
  }
}
