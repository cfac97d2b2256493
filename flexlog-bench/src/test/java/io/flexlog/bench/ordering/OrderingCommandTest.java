package io.flexlog.bench.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class OrderingCommandTest {
  private final List<OrderingSettings> runs = new ArrayList<>();
  private final StringWriter err = new StringWriter();
  private int runnerExitCode;

  private int execute(String... args) {
    CommandLine cmd =
        new CommandLine(
            new OrderingCommand(
                (settings, out, errWriter) -> {
                  runs.add(settings);
                  return runnerExitCode;
                }));
    cmd.setErr(new PrintWriter(err, true));
    cmd.setOut(new PrintWriter(new StringWriter(), true));
    return cmd.execute(args);
  }

  @Test
  void shouldApplyDefaultsToAMinimalRun() {
    int exit = execute("--leaves", "2", "--clients", "4", "--duration", "10s");

    assertThat(exit).isZero();
    int threads = Math.min(4, Runtime.getRuntime().availableProcessors());
    assertThat(runs)
        .containsExactly(
            new OrderingSettings(
                2,
                2,
                4,
                32,
                Duration.ofSeconds(10),
                Duration.ofSeconds(2),
                OrderedColor.ROOT,
                List.of(Placement.LOOPBACK),
                false,
                RatisLog.DISK,
                RatisRequests.BATCHED,
                threads,
                Optional.empty()));
  }

  @Test
  void shouldTakeEveryOption(@TempDir Path dir) {
    Path json = dir.resolve("ordering.json");
    int exit =
        execute(
            "--leaves=1",
            "--clients=8",
            "--duration=500ms",
            "--warmup=0s",
            "--outstanding=4",
            "--height=5",
            "--color=leaf",
            "--placement=both",
            "--vs=ratis",
            "--ratis-log=memory",
            "--ratis-requests=single",
            "--client-threads=3",
            "--json=" + json);

    assertThat(exit).isZero();
    assertThat(runs)
        .containsExactly(
            new OrderingSettings(
                1,
                5,
                8,
                4,
                Duration.ofMillis(500),
                Duration.ZERO,
                OrderedColor.LEAF,
                List.of(Placement.LOOPBACK, Placement.IN_PROCESS),
                true,
                RatisLog.MEMORY,
                RatisRequests.SINGLE,
                3,
                Optional.of(json)));
  }

  @Test
  void shouldUseHeightOneWithoutLeaves() {
    execute("--leaves", "0", "--clients", "1", "--duration", "1s", "--height", "1");

    assertThat(runs.get(0).height()).isEqualTo(1);
    assertThat(runs.get(0).color()).isEqualTo(OrderedColor.ROOT);
  }

  @Test
  void shouldAcceptInProcessPlacementAndUpperCaseValues() {
    execute(
        "--leaves",
        "1",
        "--clients",
        "1",
        "--duration",
        "1s",
        "--placement",
        "IN-PROCESS",
        "--color",
        "Leaf");

    assertThat(runs.get(0).placements()).containsExactly(Placement.IN_PROCESS);
    assertThat(runs.get(0).color()).isEqualTo(OrderedColor.LEAF);
  }

  @Test
  void shouldReturnTheRunnersExitCode() {
    runnerExitCode = 1;

    assertThat(execute("--leaves", "0", "--clients", "1", "--duration", "1s")).isEqualTo(1);
  }

  @Test
  void shouldRequireLeavesClientsAndDuration() {
    assertRejected("--leaves", "--clients", "1", "--duration", "1s");
    assertRejected("--clients", "--leaves", "1", "--duration", "1s");
    assertRejected("--duration", "--leaves", "1", "--clients", "1");
  }

  @Test
  void shouldRejectOutOfRangeNumbers() {
    assertRejected("--leaves must be between 0 and 64, got -1", base("-1", "4"));
    assertRejected("--leaves must be between 0 and 64, got 65", base("65", "100"));
    assertRejected("--clients must be between 1 and 1024, got 0", base("0", "0"));
    assertRejected("--clients must be between 1 and 1024, got 2000", base("0", "2000"));
    assertRejected(
        "--outstanding must be between 1 and 4096, got 0", with(base("1", "1"), "--outstanding=0"));
    assertRejected(
        "--duration must be longer than 0", "--leaves", "1", "--clients", "1", "--duration", "0s");
  }

  @Test
  void shouldRejectFewerClientsThanLeaves() {
    assertRejected(
        "--clients (2) must be at least --leaves (4) so that every leaf has a client",
        base("4", "2"));
  }

  @Test
  void shouldRejectHeightsThatDoNotFitTheLeaves() {
    assertRejected("--height 3 needs --leaves >= 1", with(base("0", "1"), "--height=3"));
    assertRejected("--height must be between 1 and 16, got 0", with(base("2", "2"), "--height=0"));
    assertRejected(
        "--height must be between 1 and 16, got 17", with(base("2", "2"), "--height=17"));
  }

  @Test
  void shouldTreatHeightOneWithLeavesAsTheRootAlone() {
    int exit = execute(with(base("1", "1"), "--height=1"));

    assertThat(exit).isZero();
    assertThat(runs.get(0).leaves()).isZero();
    assertThat(runs.get(0).height()).isEqualTo(1);
  }

  @Test
  void shouldNotAskForAClientPerLeafWhenHeightOneHasNoLeaves() {
    int exit = execute(with(base("4", "1"), "--height=1"));

    assertThat(exit).isZero();
    assertThat(runs.get(0).clients()).isEqualTo(1);
  }

  @Test
  void shouldRejectLeafColorAtHeightOne() {
    assertRejected(
        "--color leaf needs --height >= 2: with --height 1 the only color is global",
        with(base("1", "1"), "--height=1", "--color=leaf"));
  }

  @Test
  void shouldRejectLeafColorWithoutLeaves() {
    assertRejected("--color leaf needs --leaves >= 1", with(base("0", "1"), "--color=leaf"));
  }

  @Test
  void shouldNameTheAcceptedValuesOfUnknownChoices() {
    assertRejected(
        "--color: expected one of root, leaf, got 'middle'",
        with(base("1", "1"), "--color=middle"));
    assertRejected(
        "--placement: expected one of loopback, in-process, both, got 'remote'",
        with(base("1", "1"), "--placement=remote"));
    assertRejected(
        "--vs: the only peer is 'ratis', got 'paxos'", with(base("1", "1"), "--vs=paxos"));
    assertRejected(
        "--ratis-log: expected one of disk, memory, got 'ssd'",
        with(base("1", "1"), "--vs=ratis", "--ratis-log=ssd"));
    assertRejected(
        "--ratis-requests: expected one of batched, single, got 'pipelined'",
        with(base("1", "1"), "--vs=ratis", "--ratis-requests=pipelined"));
  }

  @Test
  void shouldRejectRatisLogWithoutRatis() {
    assertRejected("--ratis-log needs --vs ratis", with(base("1", "1"), "--ratis-log=memory"));
    assertRejected(
        "--ratis-requests needs --vs ratis", with(base("1", "1"), "--ratis-requests=single"));
  }

  @Test
  void shouldRejectMoreClientThreadsThanClients() {
    assertRejected(
        "--client-threads must be between 1 and --clients (2), got 3",
        with(base("1", "2"), "--client-threads=3"));
  }

  @Test
  void shouldRejectBadDurations() {
    assertRejected("'ten' is not a duration", with(base("1", "1"), "--warmup=ten"));
  }

  @Test
  void shouldRejectAJsonFileInAMissingDirectory(@TempDir Path dir) {
    Path json = dir.resolve("missing").resolve("out.json");
    assertRejected("does not exist", with(base("1", "1"), "--json=" + json));
    assertRejected("is a directory", with(base("1", "1"), "--json=" + dir));
  }

  private static String[] base(String leaves, String clients) {
    return new String[] {"--leaves", leaves, "--clients", clients, "--duration", "1s"};
  }

  private static String[] with(String[] base, String... more) {
    String[] all = new String[base.length + more.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    return all;
  }

  private void assertRejected(String expectedMessage, String... args) {
    err.getBuffer().setLength(0);
    int exit = execute(args);

    assertThat(exit).as("exit code for %s", List.of(args)).isEqualTo(2);
    assertThat(err.toString()).contains(expectedMessage);
    assertThat(runs).isEmpty();
  }
}
