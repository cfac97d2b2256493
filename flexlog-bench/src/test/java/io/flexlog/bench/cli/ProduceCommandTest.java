package io.flexlog.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ProduceCommandTest {
  private final List<ProduceSettings> runs = new ArrayList<>();
  private final StringWriter err = new StringWriter();

  private int execute(String... args) {
    CommandLine cmd =
        new CommandLine(
            new ProduceCommand(
                (settings, out, errWriter) -> {
                  runs.add(settings);
                  return 0;
                }));
    cmd.setErr(new PrintWriter(err, true));
    cmd.setOut(new PrintWriter(new StringWriter(), true));
    return cmd.execute(args);
  }

  @Test
  void shouldTakeProducerPerformanceStyleArguments() {
    int exit =
        execute(
            "--topic=orders",
            "--num-records=1000",
            "--warmup-records=100",
            "--record-size=1024",
            "--throughput=500",
            "--producer-props",
            "linger.ms=5",
            "batch.size=65536");

    assertThat(exit).isZero();
    assertThat(runs)
        .containsExactly(
            new ProduceSettings(
                "127.0.0.1:7070",
                "orders",
                1000,
                100,
                1024,
                500,
                Map.of("linger.ms", "5", "batch.size", "65536")));
  }

  @Test
  void shouldRefuseAPropertyWithoutValue() {
    int exit = execute("--num-records=10", "--record-size=10", "--producer-props", "linger.ms");

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).contains("--producer-props: 'linger.ms' is not KEY=VALUE");
    assertThat(runs).isEmpty();
  }

  @Test
  void shouldRefuseAWarmupAsLongAsTheRun() {
    int exit = execute("--num-records=10", "--warmup-records=10", "--record-size=10");

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).contains("--warmup-records must be between 0 and 9, got 10");
  }

  @Test
  void shouldRefuseAZeroThroughput() {
    int exit = execute("--num-records=10", "--record-size=10", "--throughput=0");

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).contains("--throughput must be positive or -1");
  }
}
