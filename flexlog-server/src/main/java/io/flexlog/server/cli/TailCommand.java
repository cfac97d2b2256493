package io.flexlog.server.cli;

import io.flexlog.client.FlexLog;
import io.flexlog.client.LogRecord;
import io.flexlog.client.RecordStream;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "tail",
    mixinStandardHelpOptions = true,
    description = {
      "Print the records of a color as they arrive, in SN order, until Ctrl-C (or --max).",
      "One line per record. --format text (the default): SN<TAB>length<TAB>payload; the SN is"
          + " a plain decimal number, usable with 'read --sn' and '--from'; the payload is"
          + " printed as UTF-8 text when it is printable, else as 0x and the hex of its first "
          + TailCommand.HEX_PREFIX_BYTES
          + " bytes (with ... if longer). --format hex: SN<TAB>length<TAB>all of the payload in"
          + " hex. --format raw: each payload's bytes and a newline. --format json: one JSON"
          + " object per record (color, sn, length, payload_base64, payload_utf8 if valid)."
    })
final class TailCommand implements Callable<Integer> {
  static final int HEX_PREFIX_BYTES = 32;
  private static final Duration POLL = Duration.ofMillis(200);

  @Mixin ClientOptions client;

  @Option(
      names = "--color",
      paramLabel = "COLOR",
      required = true,
      description = "The color to follow.")
  String color;

  @Option(
      names = "--from",
      paramLabel = "SN",
      defaultValue = "0",
      description = "Start at the first record with SN >= this (default: ${DEFAULT-VALUE}, all).")
  long from;

  @Option(
      names = "--max",
      paramLabel = "N",
      defaultValue = "0",
      description = "Stop after this many records (default: 0, never).")
  long max;

  @Option(
      names = "--format",
      paramLabel = "FORMAT",
      defaultValue = "text",
      description = RecordFormat.HELP)
  String format;

  @Override
  public Integer call() throws InterruptedException, IOException {
    RecordFormat output = RecordFormat.parse(format);
    if (from < 0) {
      throw new IllegalArgumentException("--from must be an SN >= 0, got " + from);
    }
    if (max < 0) {
      throw new IllegalArgumentException("--max must be >= 0, got " + max);
    }
    PrintStream out = System.out;
    CountDownLatch finished = new CountDownLatch(1);
    try (FlexLog log = client.connect();
        RecordStream stream = log.subscribe(color, from)) {
      // Ctrl-C or SIGTERM: close the stream, which ends the loop, and let the client close.
      Thread stopper =
          new Thread(
              () -> {
                stream.close();
                awaitQuietly(finished);
              },
              "flexlog-tail-stop");
      Runtime.getRuntime().addShutdownHook(stopper);
      try {
        long printed = 0;
        while (max == 0 || printed < max) {
          LogRecord record;
          try {
            record = stream.poll(POLL);
          } catch (IllegalStateException closed) {
            break;
          }
          if (record != null) {
            output.writeLine(record, out);
            printed++;
          }
        }
      } finally {
        removeHook(stopper);
      }
    } finally {
      finished.countDown();
    }
    return 0;
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // The JVM is shutting down (Ctrl-C): the hook is running and needs no removal.
    }
  }

  /** {@code SN<TAB>length<TAB>payload}, see the command's description. */
  static String format(LogRecord record) {
    byte[] payload = record.payload();
    return record.sn() + "\t" + payload.length + "\t" + printable(payload);
  }

  static String printable(byte[] payload) {
    String text = RecordFormat.utf8(payload);
    if (text != null
        && text.chars().allMatch(c -> c == '\t' || (!Character.isISOControl(c) && c != 0x2028))) {
      return text;
    }
    int shown = Math.min(payload.length, HEX_PREFIX_BYTES);
    return "0x"
        + HexFormat.of().formatHex(payload, 0, shown)
        + (payload.length > shown ? "..." : "");
  }
}
