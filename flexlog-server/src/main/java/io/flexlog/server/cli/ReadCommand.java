package io.flexlog.server.cli;

import io.flexlog.client.FlexLog;
import io.flexlog.client.LogRecord;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "read",
    mixinStandardHelpOptions = true,
    description = "Print the record of a color at an SN (as UTF-8). Exit 1 for a hole or timeout.")
final class ReadCommand implements Callable<Integer> {
  @Mixin ClientOptions client;

  @Option(
      names = "--color",
      paramLabel = "COLOR",
      required = true,
      description = "The color to read from.")
  String color;

  @Option(names = "--sn", paramLabel = "SN", required = true, description = "The sequence number.")
  long sn;

  @Override
  public Integer call() {
    if (sn <= 0) {
      throw new IllegalArgumentException("--sn must be a positive sequence number, got " + sn);
    }
    try (FlexLog log = client.connect()) {
      Optional<LogRecord> record = log.read(color, sn);
      if (record.isEmpty()) {
        System.err.println("flexlog: no record at SN " + sn + " of color '" + color + "' (a hole)");
        return 1;
      }
      System.out.println(new String(record.get().payload(), StandardCharsets.UTF_8));
      return 0;
    }
  }
}
