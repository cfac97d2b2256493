package io.flexlog.bench.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class E2eCommandTest {
  private final List<E2eSettings> runs = new ArrayList<>();
  private final StringWriter err = new StringWriter();

  private int execute(String... args) {
    CommandLine cmd =
        new CommandLine(
            new E2eCommand(
                (settings, out, e) -> {
                  runs.add(settings);
                  return 0;
                }));
    cmd.setErr(new PrintWriter(err, true));
    cmd.setOut(new PrintWriter(new StringWriter(), true));
    return cmd.execute(args);
  }

  @Test
  void shouldApplyDefaultsWithTheEmbeddedTree() {
    assertThat(execute("--embedded-tree", "--duration", "5s")).isZero();

    assertThat(runs)
        .containsExactly(
            new E2eSettings(
                Optional.empty(),
                List.of("global", "left"),
                4,
                2,
                1024,
                0,
                Duration.ofSeconds(5),
                Duration.ofSeconds(2),
                "auto",
                256L << 20,
                Optional.empty()));
  }

  @Test
  void shouldTakeABootstrapColorsAndARate() {
    execute(
        "--bootstrap=127.0.0.1:7070",
        "--colors=global,right",
        "--producers=3",
        "--subscribers=5",
        "--record-bytes=40",
        "--rate=1000",
        "--duration=1s",
        "--warmup=0s");

    E2eSettings s = runs.get(0);
    assertThat(s.bootstrap()).contains("127.0.0.1:7070");
    assertThat(s.colors()).containsExactly("global", "right");
    assertThat(s.producers()).isEqualTo(3);
    assertThat(s.subscribers()).isEqualTo(5);
    assertThat(s.ratePerProducer()).isEqualTo(1000);
    assertThat(s.warmup()).isZero();
  }

  @Test
  void shouldRejectBadArguments() {
    assertRejected("--bootstrap", "--duration", "1s"); // neither target
    assertRejected("mutually exclusive", "--bootstrap=h:1", "--embedded-tree", "--duration", "1s");
    assertRejected(
        "--record-bytes must be at least 40",
        "--embedded-tree",
        "--duration=1s",
        "--record-bytes=39");
    assertRejected(
        "--producers must be between 1 and 256, got 0",
        "--embedded-tree",
        "--duration=1s",
        "--producers=0");
    assertRejected("--rate must be between 1", "--embedded-tree", "--duration=1s", "--rate=0");
    assertRejected(
        "'left' is listed twice", "--embedded-tree", "--duration=1s", "--colors=left,left");
    assertRejected(
        "--engine and --pm-bytes need --embedded-tree",
        "--bootstrap=127.0.0.1:7070",
        "--duration=1s",
        "--pm-bytes=64MiB");
    assertRejected("--duration must be longer than 0", "--embedded-tree", "--duration=0s");
  }

  private void assertRejected(String expected, String... args) {
    err.getBuffer().setLength(0);
    assertThat(execute(args)).as("exit code for %s", List.of(args)).isEqualTo(2);
    assertThat(err.toString()).contains(expected);
    assertThat(runs).isEmpty();
  }
}
