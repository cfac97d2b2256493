package io.flexlog.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.consumer.ColorShard;
import io.flexlog.client.consumer.FlexLogGroups;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A consumer group of 4 member processes over a color with 8 shards, on a cluster of real node
 * processes, while members are killed with {@code kill -9} and restarted: every appended record is
 * processed at least once, each member incarnation sees each shard in SN order, and the committed
 * positions in the group's log never move backwards.
 */
class ConsumerGroupProcessTest {
  private static final int MEMBERS = 4;
  private static final int SHARDS = 8;
  private static final String COLOR = "orders";
  private static final String GROUP = "it";

  @RegisterExtension final NodeLogsOnFailure nodeLogs = new NodeLogsOnFailure();
  @TempDir Path dir;
  private TestCluster cluster;
  private final Process[] members = new Process[MEMBERS];

  @AfterEach
  void stop() throws Exception {
    for (Process p : members) {
      if (p != null) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static TestCluster.Layout layout() {
    List<String> shards = new ArrayList<>();
    for (int i = 0; i < SHARDS; i++) {
      shards.add("{id: " + i + ", color: " + COLOR + ", replicas: [1, 2, 3]}");
    }
    shards.add(
        "{id: "
            + SHARDS
            + ", color: "
            + FlexLogGroups.groupColor(GROUP)
            + ", replicas: [1, 2, 3]}");
    return new TestCluster.Layout(
        List.of(0),
        TestCluster.REPLICAS,
        List.of(
            "{id: 0, name: global, sequencer: 0}",
            "{id: 1, name: " + COLOR + ", parent: global, sequencer: 0}",
            "{id: 2, name: " + FlexLogGroups.groupColor(GROUP) + ", parent: global, sequencer: 0}"),
        shards,
        false);
  }

  private Process startMember(int i) throws IOException {
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                TestCluster.classpath(),
                GroupMemberProcess.class.getName(),
                cluster.bootstrap(),
                COLOR,
                GROUP,
                output(i).toString())
            .redirectErrorStream(true)
            .redirectOutput(
                ProcessBuilder.Redirect.appendTo(dir.resolve("member-" + i + ".log").toFile()))
            .start();
    members[i] = p;
    return p;
  }

  private Path output(int i) {
    // One file per incarnation: order is checked per incarnation.
    int incarnation = 0;
    while (Files.exists(dir.resolve("member-" + i + "-" + incarnation + ".out"))) {
      incarnation++;
    }
    return dir.resolve("member-" + i + "-" + incarnation + ".out");
  }

  @Test
  void shouldProcessEveryRecordAtLeastOnceInShardOrderWhileMembersAreKilled() throws Exception {
    cluster = nodeLogs.watch(TestCluster.create(dir, layout()));
    cluster.start();
    FlexLogConfig config =
        FlexLogConfig.builder()
            .bootstrapServers(cluster.bootstrap())
            .deliveryTimeout(Duration.ofSeconds(30))
            .build();
    Set<Long> appended = new ConcurrentSkipListSet<>();
    Random random = new Random(12);
    Map<ColorShard, Long> lastCommitted = new HashMap<>();
    try (FlexLog log = FlexLog.connect(config)) {
      for (int i = 0; i < MEMBERS; i++) {
        startMember(i);
      }
      long end = System.nanoTime() + Duration.ofSeconds(25).toNanos();
      int round = 0;
      while (System.nanoTime() < end) {
        for (int i = 0; i < 50; i++) {
          appended.add(log.append(COLOR, ("r" + round + "-" + i).getBytes(StandardCharsets.UTF_8)));
        }
        if (++round % 4 == 0) {
          int victim = random.nextInt(MEMBERS);
          members[victim].destroyForcibly().waitFor(10, TimeUnit.SECONDS);
          startMember(victim);
          checkMonotonic(config, lastCommitted);
        }
        Thread.sleep(300);
      }
      // Let the group settle and finish: every record processed at least once.
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      Set<Long> processed = processed();
      while (!processed.containsAll(appended) && System.nanoTime() < deadline) {
        Thread.sleep(500);
        checkMonotonic(config, lastCommitted);
        processed = processed();
      }
      Set<Long> missing = new TreeSet<>(appended);
      missing.removeAll(processed);
      assertThat(missing).as("records never processed").isEmpty();
    }
    assertShardOrderPerIncarnation();
  }

  private void checkMonotonic(FlexLogConfig config, Map<ColorShard, Long> last) {
    FlexLogGroups.describe(config, GROUP)
        .committed()
        .forEach(
            (cs, sn) -> {
              Long before = last.put(cs, sn);
              if (before != null) {
                assertThat(sn)
                    .as("committed position of %s moved backwards", cs)
                    .isGreaterThanOrEqualTo(before);
              }
            });
  }

  private Set<Long> processed() throws IOException {
    Set<Long> sns = new TreeSet<>();
    try (var files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".out")).toList()) {
        for (String line : Files.readAllLines(f)) {
          String[] parts = line.split(" ");
          if (parts.length == 2 && Character.isDigit(line.charAt(0))) {
            sns.add(Long.parseLong(parts[1]));
          }
        }
      }
    }
    return sns;
  }

  /**
   * Within one incarnation and between two assignment changes, each shard's SNs strictly increase
   * (a shard given back to a member restarts at its committed position, so it may repeat SNs across
   * an assignment change).
   */
  private void assertShardOrderPerIncarnation() throws IOException {
    try (var files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".out")).toList()) {
        Map<Integer, Long> last = new HashMap<>();
        for (String line : Files.readAllLines(f)) {
          if (line.startsWith("assigned") || line.startsWith("revoked")) {
            last.clear();
            continue;
          }
          String[] parts = line.split(" ");
          if (parts.length != 2) {
            continue;
          }
          int shard = Integer.parseInt(parts[0]);
          long sn = Long.parseLong(parts[1]);
          Long before = last.put(shard, sn);
          if (before != null) {
            assertThat(sn).as("%s: shard %d out of SN order", f, shard).isGreaterThan(before);
          }
        }
      }
    }
  }
}
