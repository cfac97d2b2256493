package io.flexlog.server.control.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.admin.v1.AddColorRequest;
import io.flexlog.admin.v1.AddColorResponse;
import io.flexlog.admin.v1.AlterColorRequest;
import io.flexlog.admin.v1.AlterColorResponse;
import io.flexlog.admin.v1.ColorInfo;
import io.flexlog.core.error.MetadataUnavailableException;
import io.flexlog.core.model.Retention;
import io.flexlog.core.model.Topology;
import io.flexlog.server.control.AdminClient;
import io.flexlog.server.control.HostPort;
import io.flexlog.server.control.TopologyWatcher;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetadataQuorumTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(2);

  @TempDir Path dir;

  private static AddColorRequest color(String name) {
    return AddColorRequest.newBuilder()
        .setName(name)
        .setParent("global")
        .setShards(1)
        .setReplicationFactor(3)
        .build();
  }

  private static List<String> colorNames(AdminClient admin) {
    return admin.listColors().getColorsList().stream().map(ColorInfo::getName).toList();
  }

  /** AddColor through {@code admin}, retried while the quorum elects; returns how long it took. */
  private static long addColorWithinMs(String admin, String name, Duration limit) throws Exception {
    long start = System.nanoTime();
    long deadline = start + limit.toNanos();
    try (AdminClient client = AdminClient.connect(admin, Duration.ofSeconds(10))) {
      while (true) {
        try {
          client.addColor(color(name));
          return (System.nanoTime() - start) / 1_000_000;
        } catch (MetadataUnavailableException e) {
          if (System.nanoTime() > deadline) {
            throw e;
          }
          Thread.sleep(50);
        }
      }
    }
  }

  @Test
  void shouldForwardAddColorFromAFollowerAndApplyItOnEveryNode() throws Exception {
    try (QuorumFixture quorum = new QuorumFixture(dir, TIMEOUT, 1000).startAll()) {
      int leader = quorum.awaitLeader(Duration.ofSeconds(10));
      int follower = (leader + 1) % QuorumFixture.PEERS;

      try (AdminClient admin =
          AdminClient.connect(quorum.admin(follower), Duration.ofSeconds(10))) {
        AddColorResponse response = admin.addColor(color("orders"));

        assertThat(response.getCreated()).isTrue();
        assertThat(colorNames(admin)).contains("orders");
      }
      long version = quorum.controller(leader).topology().version();
      awaitAllApplied(quorum, version, List.of(0, 1, 2));
    }
  }

  @Test
  void shouldKeepAddColorAndTopologyReadsWorkingAfterTheLeaderIsKilled() throws Exception {
    try (QuorumFixture quorum = new QuorumFixture(dir, TIMEOUT, 1000).startAll()) {
      int leader = quorum.awaitLeader(Duration.ofSeconds(10));
      addColorWithinMs(quorum.admin(leader), "before", Duration.ofSeconds(10));

      quorum.stop(leader);
      int survivor = (leader + 1) % QuorumFixture.PEERS;
      long tookMs = addColorWithinMs(quorum.admin(survivor), "after", Duration.ofSeconds(10));

      assertThat(tookMs).as("AddColor resumed after the leader died").isLessThan(5_000);
      try (AdminClient admin = AdminClient.connect(quorum.admin(survivor), Duration.ofSeconds(5))) {
        assertThat(colorNames(admin)).contains("before", "after");
        assertThat(admin.topology().color("after")).isPresent();
      }
    }
  }

  @Test
  void shouldFailWithMetadataUnavailableWhenTwoOfThreeAreLostAndRecoverWhenOneReturns()
      throws Exception {
    try (QuorumFixture quorum = new QuorumFixture(dir, TIMEOUT, 1000).startAll()) {
      int leader = quorum.awaitLeader(Duration.ofSeconds(10));
      addColorWithinMs(quorum.admin(leader), "kept", Duration.ofSeconds(10));
      int survivor = (leader + 1) % QuorumFixture.PEERS;
      int other = (leader + 2) % QuorumFixture.PEERS;

      quorum.stop(leader);
      quorum.stop(other);

      try (AdminClient admin =
          AdminClient.connect(quorum.admin(survivor), Duration.ofSeconds(30))) {
        long start = System.nanoTime();
        assertThatThrownBy(() -> admin.addColor(color("refused")))
            .isInstanceOf(MetadataUnavailableException.class)
            .hasMessageContaining("metadata unavailable");
        assertThatThrownBy(admin::listColors).isInstanceOf(MetadataUnavailableException.class);
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(tookMs).as("typed errors, not a hang").isLessThan(4 * TIMEOUT.toMillis() + 4000);
      }

      quorum.start(other);
      addColorWithinMs(quorum.admin(survivor), "resumed", Duration.ofSeconds(15));
      try (AdminClient admin = AdminClient.connect(quorum.admin(other), Duration.ofSeconds(10))) {
        assertThat(colorNames(admin)).contains("kept", "resumed");
      }
    }
  }

  @Test
  void shouldSnapshotPurgeTheLogAndRecoverFromTheSnapshotAfterAFullRestart() throws Exception {
    try (QuorumFixture quorum = new QuorumFixture(dir, TIMEOUT, 3).startAll()) {
      int leader = quorum.awaitLeader(Duration.ofSeconds(10));
      for (int i = 0; i < 8; i++) {
        addColorWithinMs(quorum.admin(leader), "c" + i, Duration.ofSeconds(10));
      }
      awaitSnapshot(quorum.storage(leader));

      for (int i = 0; i < QuorumFixture.PEERS; i++) {
        quorum.stop(i);
      }
      quorum.startAll();
      int next = quorum.awaitLeader(Duration.ofSeconds(10));
      try (AdminClient admin = AdminClient.connect(quorum.admin(next), Duration.ofSeconds(10))) {
        List<String> names = awaitColors(admin, 9);
        assertThat(names).contains("global", "c0", "c7");
      }
    }
  }

  /**
   * A member that was down while the others snapshotted and purged their logs gets the leader's
   * snapshot installed when it returns. Its state machine must reload from that snapshot: before,
   * it reloaded the snapshot it had cached at start, Ratis' consistency check failed, and the
   * member's Raft server closed for good, so the next loss of another member left no majority.
   */
  @Test
  void shouldCatchUpAMemberThroughAnInstalledSnapshotAndKeepAMajorityWithIt() throws Exception {
    try (QuorumFixture quorum = new QuorumFixture(dir, TIMEOUT, 3).startAll()) {
      int first = quorum.awaitLeader(Duration.ofSeconds(10));
      int lagging = (first + 1) % QuorumFixture.PEERS;
      quorum.stop(lagging);
      for (int i = 0; i < 4; i++) {
        addColorWithinMs(quorum.admin(first), "s" + i, Duration.ofSeconds(10));
      }
      // Restarts close the log segments of the other two, so a snapshot lets them purge what the
      // lagging member still needs.
      for (int id = 0; id < QuorumFixture.PEERS; id++) {
        if (id != lagging) {
          quorum.stop(id);
          quorum.start(id);
        }
      }
      int leader = quorum.awaitLeader(Duration.ofSeconds(10));
      for (int i = 4; i < 8; i++) {
        addColorWithinMs(quorum.admin(leader), "s" + i, Duration.ofSeconds(10));
      }
      awaitSnapshot(quorum.storage(leader));
      awaitPurged(quorum.storage(leader));

      quorum.start(lagging);
      long latest = quorum.member(leader).quorum().localTopology().orElseThrow().version();
      awaitCondition(
          "the returning member applied topology version " + latest,
          () ->
              quorum.member(lagging).quorum().localTopology().map(Topology::version).orElse(0L)
                  >= latest);
      // The returning member and the third one must now form a majority without the leader.
      quorum.stop(leader);
      int survivor = 3 - leader - lagging;
      addColorWithinMs(quorum.admin(survivor), "after", Duration.ofSeconds(20));
      try (AdminClient admin = AdminClient.connect(quorum.admin(lagging), Duration.ofSeconds(10))) {
        assertThat(awaitColors(admin, 10)).contains("s0", "s7", "after");
      }
    }
  }

  /** Waits until the member's Raft log no longer starts at index 0 (a closed segment purged). */
  private static void awaitPurged(Path storage) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (true) {
      try (java.util.stream.Stream<Path> files = Files.walk(storage)) {
        if (files.noneMatch(f -> f.getFileName().toString().startsWith("log_0-"))) {
          return;
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the leader's first log segment was not purged within 20 s");
      }
      Thread.sleep(50);
    }
  }

  private static void awaitCondition(String what, java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within 20 s: " + what);
      }
      Thread.sleep(20);
    }
  }

  @Test
  void shouldAlterRetentionThroughAFollowerAndKeepItAcrossASnapshotAndAFullRestart()
      throws Exception {
    Retention expected = new Retention(60_000, 1L << 20);
    try (QuorumFixture quorum = new QuorumFixture(dir, TIMEOUT, 3).startAll()) {
      int leader = quorum.awaitLeader(Duration.ofSeconds(10));
      int follower = (leader + 1) % QuorumFixture.PEERS;
      try (AdminClient admin =
          AdminClient.connect(quorum.admin(follower), Duration.ofSeconds(10))) {
        AddColorResponse added =
            admin.addColor(color("events").toBuilder().setRetentionMs(60_000).build());
        AlterColorResponse altered =
            admin.alterColor(
                AlterColorRequest.newBuilder()
                    .setName("events")
                    .setRetentionBytes(1L << 20)
                    .build());

        assertThat(added.getColor().getRetentionMs()).isEqualTo(60_000);
        assertThat(added.getColor().getRetentionBytes()).isEqualTo(Retention.KEEP);
        assertThat(altered.getChanged()).isTrue();
        assertThat(altered.getColor().getRetentionMs()).isEqualTo(60_000);
        assertThat(altered.getColor().getRetentionBytes()).isEqualTo(1L << 20);
        assertThat(admin.topology().color("events").orElseThrow().retention()).isEqualTo(expected);
      }
      for (int i = 0; i < 4; i++) {
        addColorWithinMs(quorum.admin(leader), "c" + i, Duration.ofSeconds(10));
      }
      awaitSnapshot(quorum.storage(leader));

      for (int i = 0; i < QuorumFixture.PEERS; i++) {
        quorum.stop(i);
      }
      quorum.startAll();
      int next = quorum.awaitLeader(Duration.ofSeconds(10));
      try (AdminClient admin = AdminClient.connect(quorum.admin(next), Duration.ofSeconds(10))) {
        awaitColors(admin, 6);
        assertThat(admin.topology().color("events").orElseThrow().retention()).isEqualTo(expected);
        assertThat(admin.topology().color("c0").orElseThrow().retention())
            .isEqualTo(Retention.KEEP_ALL);
      }
    }
  }

  @Test
  void shouldSendAWatcherFromAFollowerToTheLeader() throws Exception {
    try (QuorumFixture quorum = new QuorumFixture(dir, TIMEOUT, 1000).startAll()) {
      int leader = quorum.awaitLeader(Duration.ofSeconds(10));
      int follower = (leader + 1) % QuorumFixture.PEERS;
      AtomicLong seen = new AtomicLong();
      HostPort followerAdmin = quorum.config.peer(follower).orElseThrow().admin();
      try (TopologyWatcher watcher =
          TopologyWatcher.start(
              List.of(followerAdmin, quorum.config.peer(leader).orElseThrow().admin()),
              10,
              1,
              topology -> seen.set(topology.version()))) {
        addColorWithinMs(quorum.admin(follower), "watched", Duration.ofSeconds(10));
        long version = quorum.controller(leader).topology().version();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (seen.get() < version && System.nanoTime() < deadline) {
          Thread.sleep(20);
        }
        assertThat(seen.get()).isEqualTo(version);
        assertThat(watcher.admin()).isEqualTo(quorum.config.peer(leader).orElseThrow().admin());
      }
    }
  }

  @Test
  void shouldHandARoleToABackupInALargerEpochWhenItsLeaderDies() throws Exception {
    RoleLeaseKeeper.Timing timing = RoleLeaseKeeper.Timing.DEFAULT;
    try (QuorumFixture quorum = new QuorumFixture(dir, TIMEOUT, 1000).startAll()) {
      quorum.awaitLeader(Duration.ofSeconds(10));
      RoleLeaseKeeper[] keepers = new RoleLeaseKeeper[QuorumFixture.PEERS];
      for (int i = 0; i < QuorumFixture.PEERS; i++) {
        keepers[i] = quorum.member(i).keepRoleLeases(1, List.of(0, 1, 2), timing);
      }
      int firstEpoch = awaitIssuer(quorum, keepers, 0, Duration.ofSeconds(10));
      awaitRoleEpoch(quorum, 1, firstEpoch);

      long killedAt = System.nanoTime();
      quorum.stop(0); // the role's leader: its keeper and its quorum node stop together
      keepers[0] = null;
      int nextEpoch = awaitIssuer(quorum, keepers, firstEpoch + 1, Duration.ofSeconds(10));
      long tookMs = (System.nanoTime() - killedAt) / 1_000_000;

      assertThat(nextEpoch).isGreaterThan(firstEpoch);
      assertThat(tookMs).as("role failover").isLessThan(5_000);
      awaitRoleEpoch(quorum, 1, nextEpoch);
      io.flexlog.core.model.Color global = quorum.controller(1).topology().color(0).orElseThrow();
      assertThat(global.sequencerId()).isIn(1, 2);
      assertThat(global.roleEpoch()).isEqualTo(nextEpoch);
    }
  }

  /**
   * Wherever Ratis first puts the quorum's leader, it ends up on a node that leads no role, so that
   * the crash of global's leader never needs a quorum election before a backup takes the role.
   */
  @Test
  void shouldMoveTheQuorumLeaderOffTheRoleLeader() throws Exception {
    RoleLeaseKeeper.Timing timing = RoleLeaseKeeper.Timing.DEFAULT;
    try (QuorumFixture quorum = new QuorumFixture(dir, TIMEOUT, 1000).startAll()) {
      // Global's role is seeded on node 0: put the quorum's leader there too, to start from (a
      // transfer may time out on a busy machine: try again).
      long moveBy = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      int quorumLeader = quorum.awaitLeader(Duration.ofSeconds(10));
      while (quorumLeader != 0 && System.nanoTime() < moveBy) {
        quorum.member(quorumLeader).quorum().leadership().transferTo(0);
        quorumLeader = quorum.awaitLeader(Duration.ofSeconds(10));
      }
      assertThat(quorumLeader).as("the quorum's leader, moved to node 0").isZero();
      RoleLeaseKeeper[] keepers = new RoleLeaseKeeper[QuorumFixture.PEERS];
      for (int i = 0; i < QuorumFixture.PEERS; i++) {
        keepers[i] = quorum.member(i).keepRoleLeases(1, List.of(0, 1, 2), timing);
      }
      awaitIssuer(quorum, keepers, 0, Duration.ofSeconds(10));
      int roleLeader = quorum.member(0).quorum().localLeases().get(0).leaderNodeId();
      assertThat(roleLeader).isZero();

      // Hand-offs are tried every ten lease periods (5 s): a busy machine may need a few.
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      int now = quorum.awaitLeader(Duration.ofSeconds(10));
      while (now == roleLeader && System.nanoTime() < deadline) {
        Thread.sleep(20);
        now = quorum.awaitLeader(Duration.ofSeconds(10));
      }
      assertThat(now)
          .as("the quorum's leader, with global led by node %d", roleLeader)
          .isNotEqualTo(roleLeader);
      RoleLease lease = quorum.member(now).quorum().localLeases().get(0);
      assertThat(lease.leaderNodeId()).as("the role stays where it was").isEqualTo(roleLeader);
    }
  }

  /** Waits until node {@code nodeId}'s controller knows color 0's role epoch {@code epoch}. */
  private static void awaitRoleEpoch(QuorumFixture quorum, int nodeId, int epoch)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (quorum.controller(nodeId).topology().color(0).orElseThrow().roleEpoch() < epoch) {
      assertThat(System.nanoTime())
          .as("node %d learns role epoch %d", nodeId, epoch)
          .isLessThan(deadline);
      Thread.sleep(10);
    }
    assertThat(quorum.controller(nodeId).topology().color(0).orElseThrow().roleEpoch())
        .isEqualTo(epoch);
  }

  /** Waits until one keeper may issue for color 0 in an epoch of at least {@code minEpoch}. */
  private static int awaitIssuer(
      QuorumFixture quorum, RoleLeaseKeeper[] keepers, int minEpoch, Duration limit)
      throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    while (System.nanoTime() < deadline) {
      for (int i = 0; i < keepers.length; i++) {
        if (keepers[i] == null) {
          continue;
        }
        RoleLease lease = quorum.member(i).quorum().localLeases().get(0);
        if (lease != null
            && lease.leaderNodeId() == i
            && lease.epoch() >= minEpoch
            && keepers[i].mayIssue(0, lease.epoch())) {
          return lease.epoch();
        }
      }
      Thread.sleep(10);
    }
    throw new AssertionError("no node leads color 0 in epoch >= " + minEpoch);
  }

  private static void awaitAllApplied(QuorumFixture quorum, long version, List<Integer> nodes)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      if (nodes.stream().allMatch(n -> quorum.appliedVersion.getOrDefault(n, 0L) >= version)) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError(
        "not every node applied version " + version + ": " + quorum.appliedVersion);
  }

  private static void awaitSnapshot(Path storage) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      try (Stream<Path> files = Files.walk(storage)) {
        if (files.anyMatch(p -> p.getFileName().toString().matches("snapshot\\.\\d+_\\d+"))) {
          return;
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no snapshot under " + storage);
  }

  private static List<String> awaitColors(AdminClient admin, int count) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    List<String> names = List.of();
    while (System.nanoTime() < deadline) {
      try {
        names = colorNames(admin);
        if (names.size() >= count) {
          return names;
        }
      } catch (MetadataUnavailableException e) {
        // Still electing.
      }
      Thread.sleep(50);
    }
    return names;
  }
}
