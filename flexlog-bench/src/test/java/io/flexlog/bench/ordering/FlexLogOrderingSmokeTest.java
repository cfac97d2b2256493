package io.flexlog.bench.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Short runs of the FlexLog side against real sequencer nodes on loopback. They check that the
 * tooling measures something and that what it measures is a correct ordering, not how fast it is.
 */
class FlexLogOrderingSmokeTest {
  private static final int CLIENTS = 3;

  private final StringWriter progress = new StringWriter();

  private static OrderingSettings settings(int leaves, OrderedColor color, Placement placement) {
    return new OrderingSettings(
        leaves,
        leaves == 0 ? 1 : 2,
        CLIENTS,
        4,
        Duration.ofMillis(400),
        Duration.ofMillis(200),
        color,
        List.of(placement),
        false,
        RatisLog.DISK,
        RatisRequests.BATCHED,
        2,
        Optional.empty());
  }

  @Test
  void shouldOrderEveryRequestOfClientsTalkingToTheRootDirectly(@TempDir Path dir)
      throws Exception {
    SnLog sns = new SnLog(CLIENTS);

    SideResult result =
        OrderingBenchmark.runFlexLog(
            settings(0, OrderedColor.ROOT, Placement.LOOPBACK),
            Placement.LOOPBACK,
            dir,
            sns,
            new PrintWriter(progress, true));

    assertThat(result.failure()).isEmpty();
    assertThat(result.sns()).isPositive();
    assertThat(result.snsPerSec()).isPositive();
    assertThat(result.p50Us()).isPositive();
    assertThat(result.orderViolations()).isZero();
    assertThat(result.label()).isEqualTo("flexlog loopback");
    sns.assertIncreasingPerClientAndUniqueOverall();
    assertThat(progress.toString()).contains("[bench] flexlog loopback: 3 clients ready");
  }

  @Test
  void shouldOrderTheRootColorFromTheLeavesWhenOneNodeHostsTheTree(@TempDir Path dir)
      throws Exception {
    SnLog sns = new SnLog(CLIENTS);

    SideResult result =
        OrderingBenchmark.runFlexLog(
            settings(2, OrderedColor.ROOT, Placement.IN_PROCESS),
            Placement.IN_PROCESS,
            dir,
            sns,
            new PrintWriter(progress, true));

    assertThat(result.isValid()).as("valid: %s", result).isTrue();
    sns.assertIncreasingPerClientAndUniqueOverall();
  }

  @Test
  void shouldRunTheCommandEndToEndAndWriteTheJsonFile(@TempDir Path dir) throws Exception {
    Path json = dir.resolve("ordering.json");
    StringWriter out = new StringWriter();
    OrderingSettings s =
        new OrderingSettings(
            1,
            2,
            2,
            2,
            Duration.ofMillis(300),
            Duration.ZERO,
            OrderedColor.LEAF,
            List.of(Placement.LOOPBACK, Placement.IN_PROCESS),
            false,
            RatisLog.DISK,
            RatisRequests.BATCHED,
            1,
            Optional.of(json));

    int exit =
        OrderingBenchmark.run(s, dir, new PrintWriter(out, true), new PrintWriter(progress, true));

    assertThat(exit).as("stdout: %s%nstderr: %s", out, progress).isZero();
    assertThat(out.toString())
        .contains("flexlog loopback     result")
        .contains("flexlog in-process   result")
        .doesNotContain("ratio");
    String written = Files.readString(json, StandardCharsets.UTF_8);
    assertThat(written)
        .startsWith("{\"benchmark\":\"ordering\",\"leaves\":1,\"height\":2,\"clients\":2,")
        .contains("\"label\":\"flexlog loopback\"", "\"label\":\"flexlog in-process\"")
        .contains("\"valid\":true")
        .endsWith("\"ratis\":null,\"ratio\":null}\n");
    // The run's temporary directory is gone; only the JSON file is left.
    try (var files = Files.list(dir)) {
      assertThat(files.toList()).containsExactly(json);
    }
  }

  /** Every SN each client received, in arrival order. */
  static final class SnLog implements SnObserver {
    private final List<List<Long>> perClient = new ArrayList<>();

    SnLog(int clients) {
      for (int i = 0; i < clients; i++) {
        perClient.add(new ArrayList<>());
      }
    }

    @Override
    public void onSn(int client, long sn) {
      List<Long> sns = perClient.get(client);
      synchronized (sns) {
        sns.add(sn);
      }
    }

    void assertIncreasingPerClientAndUniqueOverall() {
      Set<Long> all = new HashSet<>();
      long total = 0;
      for (int c = 0; c < perClient.size(); c++) {
        List<Long> sns;
        synchronized (perClient.get(c)) {
          sns = List.copyOf(perClient.get(c));
        }
        assertThat(sns).as("SNs of client %d", c).isNotEmpty().isSorted().doesNotHaveDuplicates();
        all.addAll(sns);
        total += sns.size();
      }
      assertThat(all).as("SNs shared between clients").hasSize((int) total);
    }
  }
}
