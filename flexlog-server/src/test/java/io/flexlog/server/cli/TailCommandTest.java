package io.flexlog.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.FlexLog;
import io.flexlog.client.LogRecord;
import io.flexlog.core.testing.FreePorts;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.server.dev.DevCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TailCommandTest {
  @TempDir Path data;
  private DevCluster cluster;

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private void start() throws Exception {
    int port = FreePorts.consecutive(4);
    cluster =
        DevCluster.start(
            new DevCluster.Options(
                data, port, StorageEngines.MAPPED, DurabilityMode.PROCESS, 64L << 20),
            new SimpleMeterRegistry(),
            new PrintStream(new ByteArrayOutputStream()));
  }

  /** Runs the command line; returns exit code, stdout and stderr. */
  private static List<String> run(String... args) {
    CliRun run = CliRun.run(args);
    return List.of(Integer.toString(run.code()), run.out(), run.stderr());
  }

  @Test
  void shouldFormatPrintableTextAsIsAndOtherBytesAsAHexPrefix() {
    assertThat(TailCommand.format(new LogRecord("c", 4294967297L, bytes("héllo\tworld"))))
        .isEqualTo("4294967297\t12\théllo\tworld");
    assertThat(TailCommand.printable(new byte[] {0, 1, (byte) 0xff})).isEqualTo("0x0001ff");
    assertThat(TailCommand.printable(bytes("two\nlines"))).isEqualTo("0x74776f0a6c696e6573");
    byte[] big = new byte[40];
    big[0] = (byte) 0xc3; // not valid UTF-8 on its own
    assertThat(TailCommand.printable(big))
        .isEqualTo("0xc3" + "00".repeat(TailCommand.HEX_PREFIX_BYTES - 1) + "...");
    assertThat(TailCommand.printable(new byte[0])).isEmpty();
  }

  @Test
  void shouldPrintRecordsFromAnSnOnInSnOrderAndStopAfterMax() throws Exception {
    start();
    long[] sns = new long[4];
    try (FlexLog log = FlexLog.connect(cluster.bootstrap())) {
      sns[0] = log.append("global", bytes("first"));
      sns[1] = log.append("global", new byte[] {0, 1, 2});
      sns[2] = log.append("global", bytes("third"));
      sns[3] = log.append("global", bytes("fourth"));
    }

    List<String> result =
        run(
            "tail",
            "--color",
            "global",
            "--bootstrap",
            cluster.bootstrap(),
            "--from",
            Long.toString(sns[1]),
            "--max",
            "2");

    assertThat(result.get(0)).isEqualTo("0");
    assertThat(result.get(1).lines().toList())
        .containsExactly(sns[1] + "\t3\t0x000102", sns[2] + "\t5\tthird");
  }

  @Test
  void shouldExitWithOneForAnUnknownColorAndTwoForABadStart() throws Exception {
    start();

    List<String> unknown =
        run("tail", "--color", "nope", "--bootstrap", cluster.bootstrap(), "--max", "1");
    List<String> badFrom =
        run("tail", "--color", "global", "--bootstrap", cluster.bootstrap(), "--from", "-3");

    assertThat(unknown.get(0)).isEqualTo("1");
    assertThat(unknown.get(2)).contains("unknown color 'nope'");
    assertThat(badFrom.get(0)).isEqualTo("2");
    assertThat(badFrom.get(2)).contains("--from must be an SN >= 0");
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
