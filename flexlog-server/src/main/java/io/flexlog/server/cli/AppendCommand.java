package io.flexlog.server.cli;

import io.flexlog.client.FlexLog;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "append",
    mixinStandardHelpOptions = true,
    description = {
      "Append records to a color, in order; prints one SN per record.",
      "Records are the VALUEs (UTF-8), or read from --file FILE or standard input (--file - or a"
          + " lone -): one record per line without its newline (--split lines, the default), or"
          + " the whole input as one record, byte for byte (--split none). Stops at the first"
          + " record that fails (exit 1); up to "
          + AppendCommand.WINDOW
          + " records after it may have been appended."
    })
final class AppendCommand implements Callable<Integer> {
  /** Appends in flight at once; SNs are still printed in input order. */
  static final int WINDOW = 64;

  /** The most bytes one record may take from a file or standard input. */
  static final int MAX_INPUT_RECORD_BYTES = 64 << 20;

  @Mixin ClientOptions client;

  @Option(
      names = "--color",
      paramLabel = "COLOR",
      required = true,
      description = "The color to append to.")
  String color;

  @Option(
      names = "--key",
      paramLabel = "KEY",
      description =
          "Route every record by this key (UTF-8): records with the same key go to the same shard.")
  String key;

  @Option(
      names = "--file",
      paramLabel = "FILE",
      description = "Read the records from FILE, or from standard input for '-'.")
  String file;

  @Option(
      names = "--split",
      paramLabel = "MODE",
      description =
          "With --file or standard input: lines (one record per line, default) or none (the whole"
              + " input is one record).")
  String split;

  @Parameters(
      arity = "0..*",
      paramLabel = "VALUE",
      description = "Records to append (UTF-8); a lone - reads standard input.")
  List<String> values;

  @Override
  public Integer call() throws IOException {
    String source = source();
    boolean lines = splitLines(source != null);
    byte[] keyBytes = key == null ? null : key.getBytes(StandardCharsets.UTF_8);
    try (FlexLog log = client.connect();
        Appender appender = new Appender(log, color, keyBytes)) {
      if (source == null) {
        for (String value : values) {
          appender.append(value.getBytes(StandardCharsets.UTF_8));
        }
      } else {
        try (InputStream in = open(source)) {
          if (lines) {
            appendLines(in, appender);
          } else {
            appender.append(readRecord(in, source));
          }
        }
      }
    }
    return 0;
  }

  /** The input file, "-" for standard input, or null for the VALUEs. */
  private String source() {
    boolean hasValues = values != null && !values.isEmpty();
    if (file != null && hasValues) {
      throw new IllegalArgumentException("give VALUEs or --file, not both");
    }
    if (file != null) {
      return file;
    }
    if (!hasValues) {
      throw new IllegalArgumentException(
          "nothing to append: give VALUEs, --file FILE, or - to read standard input");
    }
    return values.size() == 1 && values.get(0).equals("-") ? "-" : null;
  }

  private boolean splitLines(boolean fromInput) {
    if (split == null) {
      return true;
    }
    if (!fromInput) {
      throw new IllegalArgumentException("--split applies to --file and standard input only");
    }
    return switch (split.toLowerCase(Locale.ROOT)) {
      case "lines" -> true;
      case "none" -> false;
      default ->
          throw new IllegalArgumentException("--split must be lines or none, got '" + split + "'");
    };
  }

  private static InputStream open(String source) throws IOException {
    if (source.equals("-")) {
      return new BufferedInputStream(System.in);
    }
    try {
      return new BufferedInputStream(Files.newInputStream(Path.of(source)));
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("--file " + source + ": no such file");
    }
  }

  private static byte[] readRecord(InputStream in, String source) throws IOException {
    byte[] all = in.readNBytes(MAX_INPUT_RECORD_BYTES + 1);
    if (all.length > MAX_INPUT_RECORD_BYTES) {
      throw new IllegalArgumentException(
          describe(source) + " holds more than " + MAX_INPUT_RECORD_BYTES + " bytes");
    }
    return all;
  }

  // Bytes up to each '\n' (not included) are one record; a last line without '\n' is one too.
  private static void appendLines(InputStream in, Appender appender) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) != -1) {
      if (b == '\n') {
        appender.append(line.toByteArray());
        line.reset();
      } else {
        if (line.size() == MAX_INPUT_RECORD_BYTES) {
          throw new IllegalArgumentException(
              "a line of the input is longer than " + MAX_INPUT_RECORD_BYTES + " bytes");
        }
        line.write(b);
      }
    }
    if (line.size() > 0) {
      appender.append(line.toByteArray());
    }
  }

  private static String describe(String source) {
    return source.equals("-") ? "standard input" : "--file " + source;
  }

  /** Keeps up to {@link #WINDOW} appends in flight and prints their SNs in order. */
  private static final class Appender implements AutoCloseable {
    private final FlexLog log;
    private final String color;
    private final byte[] key;
    private final ArrayDeque<CompletableFuture<Long>> inFlight = new ArrayDeque<>();

    Appender(FlexLog log, String color, byte[] key) {
      this.log = log;
      this.color = color;
      this.key = key;
    }

    void append(byte[] payload) {
      if (inFlight.size() == WINDOW) {
        printOldest();
      }
      inFlight.add(
          key == null ? log.appendAsync(color, payload) : log.appendAsync(color, key, payload));
    }

    private void printOldest() {
      try {
        System.out.println(inFlight.remove().join());
      } catch (CompletionException e) {
        throw e.getCause() instanceof RuntimeException r ? r : e;
      }
    }

    @Override
    public void close() {
      while (!inFlight.isEmpty()) {
        printOldest();
      }
      System.out.flush();
    }
  }
}
