package io.flexlog.server.cli;

import io.flexlog.client.FlexLog;
import io.flexlog.client.TrimResult;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code flexlog trim}: drops a color's records up to an SN on every replica
 * (docs/architecture.md#trim) and prints the new trim point, head and tail.
 */
@Command(
    name = "trim",
    mixinStandardHelpOptions = true,
    description =
        "Trim a color: drop every record at or below an SN on all its replicas, then print the new"
            + " trim point, head and tail. Exit 1 if a replica refuses or does not answer.")
final class TrimCommand implements Callable<Integer> {
  @Mixin ClientOptions client;

  @Spec CommandSpec spec;

  @Option(
      names = "--color",
      paramLabel = "COLOR",
      required = true,
      description = "The color to trim.")
  String color;

  @Option(
      names = "--sn",
      paramLabel = "SN",
      required = true,
      description = "The new trim point: records at or below it are dropped.")
  long sn;

  @Override
  public Integer call() {
    if (sn <= 0) {
      throw new IllegalArgumentException("--sn must be a positive sequence number, got " + sn);
    }
    try (FlexLog log = client.connect()) {
      TrimResult result = log.trim(color, sn);
      spec.commandLine()
          .getOut()
          .println(
              "trimmed color '"
                  + result.color()
                  + "' through SN "
                  + result.trimPoint()
                  + ": head "
                  + result.head()
                  + ", tail "
                  + result.tail());
      return 0;
    }
  }
}
