package io.flexlog.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.testing.FreePorts;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.server.dev.DevCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code append} from VALUEs, files and standard input; {@code read} and {@code tail} formats. */
class AppendReadFormatTest {
  @TempDir static Path data;
  @TempDir Path files;
  private static DevCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster =
        DevCluster.start(
            new DevCluster.Options(
                data,
                FreePorts.consecutive(4),
                StorageEngines.MAPPED,
                DurabilityMode.PROCESS,
                64L << 20),
            new SimpleMeterRegistry(),
            new PrintStream(new ByteArrayOutputStream()));
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static String[] with(String... args) {
    String[] all = new String[args.length + 2];
    System.arraycopy(args, 0, all, 0, args.length);
    all[args.length] = "--bootstrap";
    all[args.length + 1] = cluster.bootstrap();
    return all;
  }

  private static long appendOne(CliRun run) {
    assertThat(run.code()).as(run.stderr()).isZero();
    List<String> sns = run.out().lines().toList();
    assertThat(sns).hasSize(1);
    return Long.parseLong(sns.get(0));
  }

  @Test
  void shouldAppendAWholeBinaryFileAsOneRecordAndReadItBackByteForByte() throws Exception {
    byte[] payload = new byte[512 * 1024];
    new Random(7).nextBytes(payload);
    payload[10] = '\n';
    payload[11] = '\r';
    payload[12] = 0;
    Path file = Files.write(files.resolve("blob.bin"), payload);

    long sn =
        appendOne(
            CliRun.run(
                with("append", "--color", "global", "--file", file.toString(), "--split", "none")));

    CliRun raw =
        CliRun.run(with("read", "--color", "global", "--sn", Long.toString(sn), "--format", "raw"));
    assertThat(raw.code()).isZero();
    assertThat(raw.stdout()).isEqualTo(payload);
    CliRun hex =
        CliRun.run(with("read", "--color", "global", "--sn", Long.toString(sn), "--format", "hex"));
    assertThat(hex.out()).isEqualTo(HexFormat.of().formatHex(payload) + "\n");
  }

  @Test
  void shouldAppendOneRecordPerLineOfStandardInputKeepingCarriageReturnsAndEmptyLines() {
    byte[] input = "one\r\n\nthree\u00e9\nlast-without-newline".getBytes(StandardCharsets.UTF_8);

    CliRun run = CliRun.withInput(input, with("append", "--color", "global", "-"));

    assertThat(run.code()).as(run.stderr()).isZero();
    List<Long> sns = run.out().lines().map(Long::parseLong).toList();
    assertThat(sns).hasSize(4).isSorted();
    assertThat(readHex(sns.get(0)))
        .isEqualTo(HexFormat.of().formatHex("one\r".getBytes(StandardCharsets.UTF_8)));
    assertThat(readHex(sns.get(1))).isEmpty();
    assertThat(readText(sns.get(2))).isEqualTo("three\u00e9");
    assertThat(readText(sns.get(3))).isEqualTo("last-without-newline");
  }

  @Test
  void shouldAppendWholeStandardInputAsOneRecordWithAKey() {
    byte[] input = "a\nb\n".getBytes(StandardCharsets.UTF_8);
    long sn =
        appendOne(
            CliRun.withInput(
                input,
                with(
                    "append", "--color", "global", "--key", "user-1", "--file", "-", "--split",
                    "none")));
    CliRun raw =
        CliRun.run(with("read", "--color", "global", "--sn", Long.toString(sn), "--format", "raw"));
    assertThat(raw.stdout()).isEqualTo(input);
  }

  @Test
  void shouldPrintJsonWithBase64AndTextWhenTheRecordIsUtf8() {
    long text = appendOne(CliRun.run(with("append", "--color", "global", "say \"hi\"\t")));
    long binary =
        appendOne(
            CliRun.withInput(
                new byte[] {(byte) 0xff, 0, 1},
                with("append", "--color", "global", "-", "--split", "none")));

    CliRun readText =
        CliRun.run(
            with("read", "--color", "global", "--sn", Long.toString(text), "--format", "json"));
    assertThat(readText.out())
        .isEqualTo(
            "{\"color\":\"global\",\"sn\":"
                + text
                + ",\"length\":9,\"payload_base64\":\""
                + Base64.getEncoder()
                    .encodeToString("say \"hi\"\t".getBytes(StandardCharsets.UTF_8))
                + "\",\"payload_utf8\":\"say \\\"hi\\\"\\t\"}\n");
    CliRun tail =
        CliRun.run(
            with(
                "tail",
                "--color",
                "global",
                "--from",
                Long.toString(binary),
                "--max",
                "1",
                "--format",
                "json"));
    assertThat(tail.out())
        .isEqualTo(
            "{\"color\":\"global\",\"sn\":"
                + binary
                + ",\"length\":3,\"payload_base64\":\"/wAB\"}\n");
    CliRun tailHex =
        CliRun.run(
            with(
                "tail",
                "--color",
                "global",
                "--from",
                Long.toString(binary),
                "--max",
                "1",
                "--format",
                "hex"));
    assertThat(tailHex.out()).isEqualTo(binary + "\t3\tff0001\n");
    CliRun tailRaw =
        CliRun.run(
            with(
                "tail",
                "--color",
                "global",
                "--from",
                Long.toString(binary),
                "--max",
                "1",
                "--format",
                "raw"));
    assertThat(tailRaw.stdout()).containsExactly(0xff - 256, 0, 1, '\n');
  }

  @Test
  void shouldDescribeTheColorsHeadAndTailAndRefuseAReadAboveIt() {
    long last = appendOne(CliRun.run(with("append", "--color", "global", "x")));
    CliRun describe = CliRun.run(with("describe", "--color", "global"));
    assertThat(describe.code()).as(describe.stderr()).isZero();
    assertThat(describe.out()).matches("color=global head=\\d+ tail=" + last + "\n");
    CliRun beyond = CliRun.run(with("read", "--color", "global", "--sn", Long.toString(last + 1)));
    assertThat(beyond.code()).isEqualTo(1);
    assertThat(beyond.stderr()).contains("is beyond its tail " + last);
  }

  @Test
  void shouldRefuseContradictoryOrBadInputOptionsWithExitTwo() {
    assertUsage(CliRun.run(with("append", "--color", "global")), "nothing to append");
    assertUsage(
        CliRun.run(with("append", "--color", "global", "--file", "x", "value")),
        "give VALUEs or --file, not both");
    assertUsage(
        CliRun.run(with("append", "--color", "global", "--split", "none", "value")),
        "--split applies to --file and standard input only");
    assertUsage(
        CliRun.withInput(new byte[1], with("append", "--color", "global", "-", "--split", "words")),
        "--split must be lines or none, got 'words'");
    assertUsage(
        CliRun.run(
            with("append", "--color", "global", "--file", files.resolve("missing").toString())),
        "no such file");
    assertUsage(
        CliRun.run(with("read", "--color", "global", "--sn", "1", "--format", "yaml")),
        "--format must be text, hex, raw or json, got 'yaml'");
  }

  private static void assertUsage(CliRun run, String message) {
    assertThat(run.code()).as(run.stderr()).isEqualTo(2);
    assertThat(run.stderr()).contains(message);
  }

  private static String readHex(long sn) {
    CliRun run =
        CliRun.run(with("read", "--color", "global", "--sn", Long.toString(sn), "--format", "hex"));
    assertThat(run.code()).as(run.stderr()).isZero();
    return run.out().strip();
  }

  private static String readText(long sn) {
    CliRun run = CliRun.run(with("read", "--color", "global", "--sn", Long.toString(sn)));
    assertThat(run.code()).as(run.stderr()).isZero();
    return run.out().strip();
  }
}
