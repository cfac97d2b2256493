package io.flexlog.server.cli;

import io.flexlog.client.ColorTail;
import io.flexlog.client.FlexLog;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "describe",
    mixinStandardHelpOptions = true,
    description = {
      "Print where a color's log starts and ends.",
      "One line: color=NAME head=SN tail=SN. The head is the first SN that is not trimmed, the"
          + " tail the last SN the color's ordering role issued; a read above the tail fails at"
          + " once (exit 1), and 'tail --from' the tail + 1 follows only new records."
    })
final class DescribeCommand implements Callable<Integer> {
  @Mixin ClientOptions client;

  @Option(
      names = "--color",
      paramLabel = "COLOR",
      required = true,
      description = "The color to describe.")
  String color;

  @Override
  public Integer call() {
    try (FlexLog log = client.connect()) {
      ColorTail bounds = log.tail(color);
      System.out.println(
          "color=" + bounds.color() + " head=" + bounds.head() + " tail=" + bounds.tail());
    }
    return 0;
  }
}
