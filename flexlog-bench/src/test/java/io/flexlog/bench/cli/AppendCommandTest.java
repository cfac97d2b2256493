package io.flexlog.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class AppendCommandTest {
  private final List<AppendSettings> runs = new ArrayList<>();
  private final StringWriter err = new StringWriter();
  private int runnerExitCode;

  private int execute(String... args) {
    CommandLine cmd =
        new CommandLine(
            new AppendCommand(
                (settings, out, errWriter) -> {
                  runs.add(settings);
                  return runnerExitCode;
                }));
    cmd.setErr(new PrintWriter(err, true));
    cmd.setOut(new PrintWriter(new StringWriter(), true));
    return cmd.execute(args);
  }

  @Test
  void shouldApplyDefaultsToAMinimalDurationRun() {
    int exit = execute("--clients", "8", "--record-bytes", "1024", "--duration", "10s");

    assertThat(exit).isZero();
    assertThat(runs)
        .containsExactly(
            new AppendSettings(
                "127.0.0.1:7070",
                "global",
                8,
                4,
                1024,
                Optional.of(Duration.ofSeconds(10)),
                OptionalLong.empty(),
                Duration.ofSeconds(2),
                Optional.empty()));
  }

  @Test
  void shouldTakeEveryOption(@TempDir Path dir) {
    Path json = dir.resolve("out.json");
    int exit =
        execute(
            "--bootstrap=10.0.0.1:7071,10.0.0.2:7071",
            "--color=orders",
            "--clients=3",
            "--record-bytes=100",
            "--count=5000",
            "--warmup=500ms",
            "--connections=2",
            "--json=" + json);

    assertThat(exit).isZero();
    assertThat(runs)
        .containsExactly(
            new AppendSettings(
                "10.0.0.1:7071,10.0.0.2:7071",
                "orders",
                3,
                2,
                100,
                Optional.empty(),
                OptionalLong.of(5000),
                Duration.ofMillis(500),
                Optional.of(json)));
  }

  @Test
  void shouldUseOneConnectionPerClientBelowFourClients() {
    execute("--clients", "2", "--record-bytes", "1", "--count", "1");

    assertThat(runs.get(0).connections()).isEqualTo(2);
  }

  @Test
  void shouldReturnTheRunnersExitCode() {
    runnerExitCode = 1;

    assertThat(execute("--clients", "1", "--record-bytes", "1", "--count", "1")).isEqualTo(1);
  }

  @Test
  void shouldRequireDurationOrCount() {
    assertRejected("--duration", "--clients", "1", "--record-bytes", "1");
  }

  @Test
  void shouldRejectDurationAndCountTogether() {
    assertRejected(
        "mutually exclusive",
        "--clients",
        "1",
        "--record-bytes",
        "1",
        "--duration",
        "1s",
        "--count",
        "5");
  }

  @Test
  void shouldRequireClientsAndRecordBytes() {
    assertRejected("--clients", "--record-bytes", "1", "--count", "1");
    assertRejected("--record-bytes", "--clients", "1", "--count", "1");
  }

  @Test
  void shouldRejectOutOfRangeNumbers() {
    assertRejected(
        "--clients must be between 1 and 100000, got 0",
        "--clients=0",
        "--record-bytes=1",
        "--count=1");
    assertRejected(
        "--record-bytes must be at least 1, got 0", "--clients=1", "--record-bytes=0", "--count=1");
    assertRejected(
        "--count must be at least 1, got 0", "--clients=1", "--record-bytes=1", "--count=0");
    assertRejected(
        "--duration must be longer than 0", "--clients=1", "--record-bytes=1", "--duration=0s");
    assertRejected(
        "--connections must be between 1 and --clients (2), got 3",
        "--clients=2",
        "--record-bytes=1",
        "--count=1",
        "--connections=3");
    assertRejected(
        "--connections must be between 1 and --clients (2), got 0",
        "--clients=2",
        "--record-bytes=1",
        "--count=1",
        "--connections=0");
  }

  @Test
  void shouldRejectValuesThatDoNotParse() {
    assertRejected("'ten'", "--clients=ten", "--record-bytes=1", "--count=1");
    assertRejected("'10x' is not a duration", "--clients=1", "--record-bytes=1", "--duration=10x");
    assertRejected(
        "'soon' is not a duration",
        "--clients=1",
        "--record-bytes=1",
        "--count=1",
        "--warmup=soon");
  }

  @Test
  void shouldRejectBadBootstrapAndBlankColor() {
    assertRejected(
        "--bootstrap: bootstrap.servers: 'localhost' is not host:port",
        "--bootstrap=localhost",
        "--clients=1",
        "--record-bytes=1",
        "--count=1");
    assertRejected(
        "--color must not be blank", "--color= ", "--clients=1", "--record-bytes=1", "--count=1");
  }

  @Test
  void shouldRejectJsonFileInMissingDirectory(@TempDir Path dir) {
    assertRejected(
        "does not exist",
        "--json=" + dir.resolve("missing/out.json"),
        "--clients=1",
        "--record-bytes=1",
        "--count=1");
    assertRejected(
        "is a directory", "--json=" + dir, "--clients=1", "--record-bytes=1", "--count=1");
  }

  private void assertRejected(String expectedMessage, String... args) {
    err.getBuffer().setLength(0);
    int exit = execute(args);

    assertThat(exit).as("exit code for %s", List.of(args)).isEqualTo(2);
    assertThat(err.toString()).contains(expectedMessage).contains("Usage: append");
    assertThat(runs).isEmpty();
  }
}
