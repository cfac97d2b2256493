package io.flexlog.server.cli;

import io.flexlog.client.FlexLog;
import io.flexlog.client.LogRecord;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "read",
    mixinStandardHelpOptions = true,
    description = {
      "Print the record of a color at an SN.",
      "Exit 1 for a hole or a timeout. --format raw prints the payload's bytes and nothing else."
    })
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

  @Option(
      names = "--format",
      paramLabel = "FORMAT",
      defaultValue = "text",
      description = RecordFormat.HELP)
  String format;

  @Override
  public Integer call() throws IOException {
    RecordFormat output = RecordFormat.parse(format);
    if (sn <= 0) {
      throw new IllegalArgumentException("--sn must be a positive sequence number, got " + sn);
    }
    try (FlexLog log = client.connect()) {
      Optional<LogRecord> record = log.read(color, sn);
      if (record.isEmpty()) {
        System.err.println("flexlog: no record at SN " + sn + " of color '" + color + "' (a hole)");
        return 1;
      }
      output.writeRecord(record.get(), System.out);
      return 0;
    }
  }
}
