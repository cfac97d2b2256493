package io.flexlog.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.LogRecord;
import io.flexlog.client.internals.KeyHash;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Sn;
import io.flexlog.it.history.History;
import io.flexlog.it.history.HistoryChecker;
import io.flexlog.server.control.AdminClient;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 10's tree failover on real processes (docs/testing.md, "Tree failover on real processes"):
 * a two-level color tree ({@code global} on sequencer node 0, its children {@code left} and {@code
 * right} on nodes 1 and 2), the three sequencer nodes forming the metadata quorum with sequencer
 * failover on, and replica nodes 3-5 holding one shard of {@code left} and one of {@code right}.
 * Four lanes of appends run throughout: to {@code global} through {@code left}'s shard, to {@code
 * global} through {@code right}'s shard (a key picks the shard), to {@code left} and to {@code
 * right}; two subscribers follow each color from SN 0.
 *
 * <p>Once the roles stayed put for 2 s, the test kills with SIGKILL the leader of {@code global}: a
 * backup takes the role (the first one alive in rank order, node 1 when node 0 led), and a child
 * color led by a third node must re-target its route to the new leader
 * (docs/architecture.md#sequencer-failover, "The tree heals"), which that node's log must say; the
 * child node that took {@code global} hands its route's tokens to the role instead. Once every lane
 * appended again, the killed node restarts; then the leader of a child color that does not lead
 * {@code global} (if roles moved so that none is left, one that does) is killed and restarted the
 * same way. After each kill an append begun after it must be acknowledged in every lane, with a
 * larger epoch in the color whose role moved, and each lane's unavailability window is printed. At
 * the end a fresh subscription scans each color, and the {@link HistoryChecker} checks the whole
 * history: every acknowledged append once, at its SN, no record at two SNs, every subscriber of a
 * color delivering the same sequence and every acknowledged record, reads consistent with them.
 */
class TreeFailoverProcessTest {
  private static final List<String> COLORS = List.of(Color.GLOBAL, "left", "right");
  private static final List<String> CHILDREN = List.of("left", "right");
  private static final Duration STEADY = Duration.ofSeconds(2);
  private static final Duration RESUME_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration DRAIN = Duration.ofSeconds(30);
  private static final int OPS_AFTER_EACH_STEP = 10;

  /** Kept after a run (every node's output of every incarnation is in it); cleared first. */
  private final Path dir = Path.of("target", "tree-failover-process").toAbsolutePath();

  @RegisterExtension final NodeLogsOnFailure nodeLogs = new NodeLogsOnFailure();

  private TestCluster cluster;
  private final History history = new History();
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
  private final Map<String, AtomicLong> maxAcked = new LinkedHashMap<>();
  private final List<Lane> lanes = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final List<HistorySubscriber> subscribers = new ArrayList<>();
  private final List<String> windows = new ArrayList<>();
  private final long startedNs = System.nanoTime();

  /** Who leads a color's role, in which role epoch. */
  private record Role(int leader, int epoch) {}

  static TestCluster.Layout layout() {
    return new TestCluster.Layout(
        List.of(0, 1, 2),
        List.of(3, 4, 5),
        List.of(
            "{id: 0, name: global, sequencer: 0}",
            "{id: 1, name: left, parent: global, sequencer: 1}",
            "{id: 2, name: right, parent: global, sequencer: 2}"),
        List.of(
            "{id: 0, color: left, replicas: [3, 4, 5]}",
            "{id: 1, color: right, replicas: [3, 4, 5]}"),
        true);
  }

  @AfterEach
  void stop() throws Exception {
    stopping.set(true);
    for (Thread t : threads) {
      t.interrupt();
      t.join(10_000);
    }
    for (HistorySubscriber s : subscribers) {
      s.stop();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Timeout(300)
  void shouldHealTheTreeWhenTheLeadersOfGlobalAndOfAChildColorAreKilled() throws Exception {
    deleteRecursively(dir);
    Files.createDirectories(dir);
    cluster = nodeLogs.watch(TestCluster.create(dir, layout())).start();
    progress("6 processes ready");
    COLORS.forEach(c -> maxAcked.put(c, new AtomicLong()));
    // global's shards, sorted by id: 0 (left's), 1 (right's); a key picks one of them.
    lanes.add(new Lane("global via left", Color.GLOBAL, keyFor(0, 2)));
    lanes.add(new Lane("global via right", Color.GLOBAL, keyFor(1, 2)));
    lanes.add(new Lane("left", "left", null));
    lanes.add(new Lane("right", "right", null));
    for (String color : COLORS) {
      for (int i = 0; i < 2; i++) {
        subscribers.add(subscribe(color, "subscriber-" + color + "-" + i));
      }
    }
    for (int i = 0; i < lanes.size(); i++) {
      int id = i;
      start("lane-" + id, () -> work(id));
    }
    awaitEveryLaneSince(System.nanoTime(), "the start");
    progress("every lane appends");

    // 1. The leader of global: a child color led by a third node must re-target its route.
    Map<String, Role> before = awaitSteadyRoles();
    Role global = before.get(Color.GLOBAL);
    Role movedGlobal = killAndTakeOver(Color.GLOBAL, global);
    Map<String, Role> after = roles();
    List<String> retargeting = new ArrayList<>();
    for (String child : CHILDREN) {
      int node = after.get(child).leader();
      if (node == before.get(child).leader()
          && node != global.leader()
          && node != movedGlobal.leader()) {
        retargeting.add(child);
        assertThat(logsOf(node))
            .as("node %d, which leads %s, re-targets its route to global's new leader", node, child)
            .contains(
                "to node %d (role epoch %d) failed over from node %d"
                    .formatted(movedGlobal.leader(), movedGlobal.epoch(), global.leader()));
      }
    }
    assertThat(retargeting)
        .as(
            "child colors led by a node that neither led nor took global, whose route to global"
                + " must re-target (roles before the kill %s, after %s; a machine too busy for the"
                + " leases moved roles before the kill)",
            before, after)
        .isNotEmpty();
    restart(global.leader());

    // 2. The leader of a child color, one that does not lead global if there is one.
    Map<String, Role> steady = awaitSteadyRoles();
    int globalLeader = steady.get(Color.GLOBAL).leader();
    String child =
        CHILDREN.stream()
            .filter(c -> steady.get(c).leader() != globalLeader)
            .findFirst()
            .orElse(CHILDREN.get(0));
    Role childRole = steady.get(child);
    killAndTakeOver(child, childRole);
    restart(childRole.leader());

    stopAndCheck();
  }

  /**
   * The roles of every color once no leader or role epoch changed for {@link #STEADY}: roles move
   * when a busy machine delays a lease's renewal.
   */
  private Map<String, Role> awaitSteadyRoles() throws Exception {
    long deadline = System.nanoTime() + RESUME_TIMEOUT.toNanos();
    Map<String, Role> last = roles();
    long since = System.nanoTime();
    while (System.nanoTime() - since < STEADY.toNanos()) {
      check(deadline, "the roles stay put for " + STEADY + " (last " + last + ")");
      Map<String, Role> now = roles();
      if (!now.equals(last)) {
        last = now;
        since = System.nanoTime();
      }
    }
    progress("roles: %s", last);
    return last;
  }

  private Map<String, Role> roles() throws Exception {
    Map<String, Role> roles = new LinkedHashMap<>();
    for (String color : COLORS) {
      roles.put(color, role(color));
    }
    return roles;
  }

  /**
   * Kills the leader of {@code color}'s role, waits until an append begun after the kill is
   * acknowledged in every lane, and checks that the role moved to another node and that the color's
   * SNs moved to a larger epoch.
   */
  private Role killAndTakeOver(String color, Role before) throws Exception {
    long lastEpochBefore = 0;
    for (Lane lane : lanes) {
      if (lane.color.equals(color)) {
        lastEpochBefore = Math.max(lastEpochBefore, Sn.epoch(lane.lastSn()));
      }
    }
    long killStart = System.nanoTime();
    cluster.killNode(before.leader());
    long killedAt = System.nanoTime(); // the process is gone: it orders nothing from here on
    progress(
        "killed node %d, the leader of %s (role epoch %d)", before.leader(), color, before.epoch());
    awaitEveryLaneSince(killedAt, "the kill of node " + before.leader());
    long deadline = System.nanoTime() + RESUME_TIMEOUT.toNanos();
    Role after = role(color);
    while (after.leader() == before.leader()) { // a quorum node's copy may lag behind
      check(deadline, "a topology naming another leader of " + color + " than node " + after);
      after = role(color);
    }
    progress("%s's role moved to node %d, role epoch %d", color, after.leader(), after.epoch());
    assertThat(after.epoch()).as("the role epoch of %s", color).isGreaterThan(before.epoch());
    List<String> perLane = new ArrayList<>();
    for (Lane lane : lanes) {
      long[] first = lane.firstAckedSince(killedAt);
      if (lane.color.equals(color)) {
        assertThat((long) Sn.epoch(first[2]))
            .as("the epoch of the first SN of lane '%s' after the kill", lane.name)
            .isGreaterThan(lastEpochBefore);
      }
      perLane.add(lane.name + " " + (first[1] - lane.lastAckedBefore(killStart)) / 1_000_000);
    }
    windows.add("kill of " + color + "'s leader (node " + before.leader() + "): " + perLane);
    return after;
  }

  private void restart(int node) throws Exception {
    long at = System.nanoTime();
    cluster.restartNode(node);
    progress("node %d restarted", node);
    awaitEveryLaneSince(at, "the restart of node " + node);
  }

  private void stopAndCheck() throws Exception {
    stopping.set(true);
    for (Thread t : List.copyOf(threads)) {
      t.join(DRAIN.toMillis());
    }
    for (String color : COLORS) {
      subscribers.add(subscribe(color, "scan-" + color));
    }
    for (HistorySubscriber s : subscribers) {
      s.awaitAtLeast(maxAcked.get(s.color()).get(), DRAIN);
    }
    assertThat(failures).isEmpty();
    long failed = lanes.stream().mapToLong(l -> l.failed.get()).sum();
    System.out.printf(
        "tree failover: unavailable per lane (ms, from its last acknowledgement before the kill to"
            + " the first of an append begun after it): %s; checked %d appends (%d failed), %d"
            + " reads, %d subscribers in %d s%n",
        windows,
        history.appendCount(),
        failed,
        history.readCount(),
        history.subscriberCount(),
        (System.nanoTime() - startedNs) / 1_000_000_000);
    HistoryChecker.assertValid(history);
  }

  private void work(int laneIndex) {
    Lane lane = lanes.get(laneIndex);
    Random random = new Random(laneIndex * 7919L + 5);
    List<Long> mine = new ArrayList<>();
    String name = "lane-" + laneIndex;
    try (FlexLog log = FlexLog.connect(config())) {
      for (long counter = 0; !stopping.get(); counter++) {
        byte[] payload = new byte[12 + random.nextInt(256)];
        random.nextBytes(payload);
        ByteBuffer.wrap(payload).putInt(laneIndex).putLong(counter);
        History.Append op = history.appendInvoked(name, lane.color, payload);
        long start = System.nanoTime();
        try {
          long sn =
              lane.key == null
                  ? log.append(lane.color, payload)
                  : log.append(lane.color, lane.key, payload);
          op.acked(sn);
          lane.acked(start, sn);
          maxAcked.get(lane.color).accumulateAndGet(sn, Math::max);
          mine.add(sn);
        } catch (RuntimeException e) {
          op.failed(e);
          lane.failed.incrementAndGet();
        }
        if (counter % 4 == 3 && !mine.isEmpty()) {
          read(log, name, lane.color, mine.get(random.nextInt(mine.size())));
        }
      }
    } catch (Throwable t) {
      failures.add(new AssertionError(name + " failed", t));
    }
  }

  private void read(FlexLog log, String name, String color, long sn) {
    History.Read read = history.readInvoked(name, color, sn);
    try {
      Optional<LogRecord> record = log.read(color, sn);
      if (record.isPresent()) {
        read.found(record.get().payload());
      } else {
        read.hole();
      }
    } catch (RuntimeException e) {
      // A failed read says nothing; the checker ignores it.
    }
  }

  /**
   * Waits until every lane acknowledged an append begun after {@code since}, and then {@link
   * #OPS_AFTER_EACH_STEP} more each.
   */
  private void awaitEveryLaneSince(long since, String after) throws Exception {
    long deadline = System.nanoTime() + RESUME_TIMEOUT.toNanos();
    for (Lane lane : lanes) {
      while (lane.lastAckedStart() <= since) {
        check(deadline, "lane '" + lane.name + "' appends again after " + after);
      }
    }
    for (Lane lane : lanes) {
      long target = lane.ackCount() + OPS_AFTER_EACH_STEP;
      while (lane.ackCount() < target) {
        check(
            deadline, OPS_AFTER_EACH_STEP + " appends of lane '" + lane.name + "' after " + after);
      }
    }
  }

  private void check(long deadline, String what) throws InterruptedException {
    if (!failures.isEmpty()) {
      throw new AssertionError("failed while waiting until " + what, failures.peek());
    }
    if (System.nanoTime() - deadline > 0) {
      throw new AssertionError("not within " + RESUME_TIMEOUT + ": " + what);
    }
    Thread.sleep(20);
  }

  /** The role of {@code color} in the topology of the first quorum node that answers. */
  private Role role(String color) throws Exception {
    long deadline = System.nanoTime() + RESUME_TIMEOUT.toNanos();
    while (true) {
      for (int id : cluster.layout().sequencers()) {
        if (!cluster.isRunning(id)) {
          continue;
        }
        try (AdminClient admin =
            AdminClient.connect(cluster.adminAddress(id), Duration.ofSeconds(5))) {
          Color c = admin.topology().color(color).orElseThrow();
          return new Role(c.sequencerId(), c.roleEpoch());
        } catch (FlexLogException e) {
          // The next quorum node.
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no admin service answered within " + RESUME_TIMEOUT);
      }
      Thread.sleep(100);
    }
  }

  /** Everything node {@code id} logged, over all its incarnations. */
  private String logsOf(int id) throws IOException {
    StringBuilder out = new StringBuilder();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path log : files.filter(p -> isLogOf(p, id)).sorted().toList()) {
        out.append(Files.readString(log, StandardCharsets.UTF_8));
      }
    }
    return out.toString();
  }

  private static boolean isLogOf(Path file, int id) {
    String name = file.getFileName().toString();
    return name.startsWith("sequencer-" + id + "-run") && name.endsWith(".log");
  }

  private static void deleteRecursively(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  /** A key that {@link FlexLog#append(String, byte[], byte[])} sends to shard {@code index}. */
  private static byte[] keyFor(int index, int shards) {
    for (int i = 0; ; i++) {
      byte[] key = ("key-" + i).getBytes(StandardCharsets.UTF_8);
      if (Math.floorMod(KeyHash.of(key), shards) == index) {
        return key;
      }
    }
  }

  private FlexLogConfig config() {
    return FlexLogConfig.builder()
        .bootstrapServers(cluster.bootstrap())
        .requestTimeout(Duration.ofSeconds(1))
        .deliveryTimeout(Duration.ofSeconds(10))
        .readTimeout(Duration.ofSeconds(5))
        .build();
  }

  private HistorySubscriber subscribe(String color, String name) {
    return HistorySubscriber.start(name, color, history, config(), failures);
  }

  private void start(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    threads.add(t);
    t.start();
  }

  private void progress(String format, Object... args) {
    System.out.printf(
        "[%6.1f s] %s%n", (System.nanoTime() - startedNs) / 1e9, String.format(format, args));
  }

  /** One stream of appends: a color, and a key that picks one of its shards (or none). */
  private static final class Lane {
    final String name;
    final String color;
    final byte[] key;
    final AtomicLong failed = new AtomicLong();

    /** (start nanos, acknowledged nanos, SN) of every acknowledged append, in ack order. */
    private final List<long[]> acks = new ArrayList<>();

    Lane(String name, String color, byte[] key) {
      this.name = name;
      this.color = color;
      this.key = key;
    }

    synchronized void acked(long startNs, long sn) {
      acks.add(new long[] {startNs, System.nanoTime(), sn});
    }

    synchronized int ackCount() {
      return acks.size();
    }

    synchronized long lastAckedStart() {
      return acks.isEmpty() ? Long.MIN_VALUE : acks.get(acks.size() - 1)[0];
    }

    synchronized long lastSn() {
      return acks.isEmpty() ? 0 : acks.get(acks.size() - 1)[2];
    }

    /** The first acknowledged append begun after {@code sinceNs}. */
    synchronized long[] firstAckedSince(long sinceNs) {
      return acks.stream().filter(a -> a[0] > sinceNs).findFirst().orElseThrow();
    }

    /** When the last append acknowledged before {@code ns} was acknowledged. */
    synchronized long lastAckedBefore(long ns) {
      return acks.stream().mapToLong(a -> a[1]).filter(t -> t < ns).max().orElseThrow();
    }
  }
}
