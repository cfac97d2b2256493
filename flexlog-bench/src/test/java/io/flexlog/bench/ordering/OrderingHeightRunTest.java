package io.flexlog.bench.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * The latency-vs-height series of the README ({@code --leaves 1 --height H}) run through the
 * command line against real sequencer nodes: every height, the root alone included, prints a result
 * line and exits 0.
 */
class OrderingHeightRunTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "height {0}")
  @ValueSource(ints = {1, 2, 3})
  void shouldPrintAResultLineForEveryHeightOfTheChain(int height) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cmd =
        new CommandLine(new OrderingCommand((s, o, e) -> OrderingBenchmark.run(s, dir, o, e)));
    cmd.setOut(new PrintWriter(out, true));
    cmd.setErr(new PrintWriter(err, true));

    int exit =
        cmd.execute(
            "--leaves=1",
            "--height=" + height,
            "--clients=1",
            "--outstanding=1",
            "--duration=300ms",
            "--warmup=0s");

    assertThat(exit).as("stdout: %s%nstderr: %s", out, err).isZero();
    assertThat(out.toString())
        .containsPattern("flexlog loopback +result +[0-9.]+ SNs/s")
        .contains(height == 1 ? "root only (height 1)" : "height " + height);
  }
}
