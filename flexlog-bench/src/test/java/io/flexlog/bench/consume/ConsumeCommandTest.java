package io.flexlog.bench.consume;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ConsumeCommandTest {
  private static int run(StringWriter err, String... args) {
    CommandLine cmd = new CommandLine(new ConsumeCommand());
    cmd.setErr(new PrintWriter(err));
    return cmd.execute(args);
  }

  @Test
  void shouldRefuseBadArgumentsWithExitCode2() {
    StringWriter err = new StringWriter();
    assertThat(run(err, "--mode", "catchup", "--records", "0")).isEqualTo(2);
    assertThat(err.toString()).contains("--records");
    StringWriter err2 = new StringWriter();
    assertThat(run(err2, "--mode", "sideways")).isEqualTo(2);
    assertThat(err2.toString()).contains("--mode");
    StringWriter err3 = new StringWriter();
    assertThat(run(err3, "--mode", "latency", "--existing-color", "x")).isEqualTo(2);
    assertThat(err3.toString()).contains("--existing-color needs --mode catchup or roundtrip");
    StringWriter err4 = new StringWriter();
    assertThat(run(err4, "--mode", "roundtrip", "--round-trips", "0")).isEqualTo(2);
    assertThat(err4.toString()).contains("--round-trips must be >= 1");
    StringWriter err5 = new StringWriter();
    assertThat(run(err5, "--mode", "roundtrip", "--warmup-round-trips", "-1")).isEqualTo(2);
    assertThat(err5.toString()).contains("--warmup-round-trips >= 0");
  }
}
