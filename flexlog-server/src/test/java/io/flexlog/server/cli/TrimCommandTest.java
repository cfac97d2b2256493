package io.flexlog.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.client.FlexLog;
import io.flexlog.core.error.TrimmedException;
import io.flexlog.core.testing.FreePorts;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.server.dev.DevCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class TrimCommandTest {
  @TempDir Path data;
  private DevCluster cluster;

  @BeforeEach
  void start() throws Exception {
    int port = FreePorts.consecutive(4);
    cluster =
        DevCluster.start(
            new DevCluster.Options(
                data, port, StorageEngines.MAPPED, DurabilityMode.PROCESS, 64L << 20),
            new SimpleMeterRegistry(),
            new PrintStream(new ByteArrayOutputStream()));
  }

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** Runs the command line; returns exit code, stdout and stderr. */
  private static List<String> run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cmd = FlexLogCli.commandLine();
    cmd.setOut(new PrintWriter(out, true));
    cmd.setErr(new PrintWriter(err, true));
    int code = cmd.execute(args);
    return List.of(Integer.toString(code), out.toString(), err.toString());
  }

  @Test
  void shouldTrimAndPrintTheNewTrimPointHeadAndTail() {
    long first;
    long last;
    try (FlexLog log = FlexLog.connect(cluster.bootstrap())) {
      first = log.append("global", "a".getBytes(StandardCharsets.UTF_8));
      last = log.append("global", "b".getBytes(StandardCharsets.UTF_8));
    }

    List<String> result =
        run(
            "trim",
            "--color",
            "global",
            "--sn",
            Long.toString(first),
            "--bootstrap",
            cluster.bootstrap());

    assertThat(result.get(0)).isEqualTo("0");
    assertThat(result.get(1).trim())
        .isEqualTo(
            "trimmed color 'global' through SN "
                + first
                + ": head "
                + (first + 1)
                + ", tail "
                + last);
    try (FlexLog log = FlexLog.connect(cluster.bootstrap())) {
      assertThatThrownBy(() -> log.read("global", first)).isInstanceOf(TrimmedException.class);
      assertThat(log.read("global", last)).isPresent();
    }
  }

  @Test
  void shouldExitWithOneWhenAReplicaRefusesAndTwoForABadSn() {
    long sn;
    try (FlexLog log = FlexLog.connect(cluster.bootstrap())) {
      sn = log.append("global", "a".getBytes(StandardCharsets.UTF_8));
    }
    String bootstrap = cluster.bootstrap();

    List<String> beyond =
        run("trim", "--color", "global", "--sn", Long.toString(sn + 5), "--bootstrap", bootstrap);
    List<String> unknown = run("trim", "--color", "nope", "--sn", "1", "--bootstrap", bootstrap);
    List<String> zero = run("trim", "--color", "global", "--sn", "0", "--bootstrap", bootstrap);
    List<String> missing = run("trim", "--color", "global", "--bootstrap", bootstrap);

    assertThat(beyond.get(0)).isEqualTo("1");
    assertThat(beyond.get(2)).contains("trim beyond the tail");
    assertThat(unknown.get(0)).isEqualTo("1");
    assertThat(unknown.get(2)).contains("unknown color 'nope'");
    assertThat(zero.get(0)).isEqualTo("2");
    assertThat(zero.get(2)).contains("--sn must be a positive sequence number");
    assertThat(missing.get(0)).isEqualTo("2");
    assertThat(missing.get(2)).contains("--sn");
  }
}
