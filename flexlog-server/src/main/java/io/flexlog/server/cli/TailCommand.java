package io.flexlog.server.cli;

import io.flexlog.client.FlexLog;
import io.flexlog.client.LogRecord;
import io.flexlog.client.RecordStream;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "tail",
    mixinStandardHelpOptions = true,
    description = {
      "Print the records of a color as they arrive, in SN order, until Ctrl-C (or --max).",
      "One line per record: SN<TAB>length<TAB>payload. The SN is a plain decimal number, usable"
          + " with 'read --sn' and '--from'. The payload is printed as UTF-8 text when it is"
          + " printable, else as 0x and the hex of its first "
          + TailCommand.HEX_PREFIX_BYTES
          + " bytes (with ... if longer)."
    })
final class TailCommand implements Callable<Integer> {
  static final int HEX_PREFIX_BYTES = 32;
  private static final Duration POLL = Duration.ofMillis(200);

  @Mixin ClientOptions client;

  @Spec CommandSpec spec;

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

  @Override
  public Integer call() throws InterruptedException {
    if (from < 0) {
      throw new IllegalArgumentException("--from must be an SN >= 0, got " + from);
    }
    if (max < 0) {
      throw new IllegalArgumentException("--max must be >= 0, got " + max);
    }
    PrintWriter out = spec.commandLine().getOut();
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
            out.println(format(record));
            out.flush();
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
    try {
      CharBuffer text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(payload));
      boolean printable =
          text.chars().allMatch(c -> c == '\t' || (!Character.isISOControl(c) && c != 0x2028));
      if (printable) {
        return text.toString();
      }
    } catch (CharacterCodingException e) {
      // not UTF-8: fall through to hex
    }
    int shown = Math.min(payload.length, HEX_PREFIX_BYTES);
    return "0x"
        + HexFormat.of().formatHex(payload, 0, shown)
        + (payload.length > shown ? "..." : "");
  }
}
