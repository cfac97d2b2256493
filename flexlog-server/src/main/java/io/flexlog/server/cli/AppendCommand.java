package io.flexlog.server.cli;

import io.flexlog.client.FlexLog;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "append",
    mixinStandardHelpOptions = true,
    description = "Append each VALUE (UTF-8) to a color, in order; prints one SN per value.")
final class AppendCommand implements Callable<Integer> {
  @Mixin ClientOptions client;

  @Option(
      names = "--color",
      paramLabel = "COLOR",
      required = true,
      description = "The color to append to.")
  String color;

  @Parameters(arity = "1..*", paramLabel = "VALUE", description = "Records to append.")
  List<String> values;

  @Override
  public Integer call() {
    try (FlexLog log = client.connect()) {
      for (String value : values) {
        System.out.println(log.append(color, value.getBytes(StandardCharsets.UTF_8)));
      }
    }
    return 0;
  }
}
