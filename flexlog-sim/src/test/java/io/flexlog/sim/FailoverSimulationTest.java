package io.flexlog.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.model.Sn;
import io.flexlog.sim.SimWorld.Faults;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Sequencer failover in the whole-data-path {@link SimWorld}: two or three sequencer nodes back up
 * the {@code global} role, each with the production lease keeper on virtual time and its issue
 * gate, against an in-memory metadata quorum with the production rules ({@link SimFailover}). Each
 * test runs one failover mode ({@link SimFailoverFaults}) over many seeds and checks the invariants
 * after every step and once healed.
 *
 * <p>Every invariant is enforced (docs/testing.md, "Sequencer failover", lists the seeds that broke
 * the last three before the replicas and sequencers kept them across role moves). {@code
 * -Dflexlog.sim.failover.seeds=N} runs N seeds per test (the {@code sim-soak} profile runs
 * thousands), {@code -Dflexlog.sim.seed=N} replays one, {@code -Dflexlog.sim.trace=N} keeps the
 * last N events. docs/testing.md describes the modes.
 */
class FailoverSimulationTest {
  private static final int SEEDS = Integer.getInteger("flexlog.sim.failover.seeds", 100);
  private static final int STEPS = Integer.getInteger("flexlog.sim.failover.steps", 800);
  private static final Long ONE_SEED = Long.getLong("flexlog.sim.seed");

  /**
   * {@code -Dflexlog.sim.failover.survey=true}: a broken invariant does not stop its seed; every
   * test runs all its seeds, prints the seeds that broke each invariant and then fails if any did
   * (to survey a soak run instead of stopping at its first broken seed).
   */
  private static final boolean SURVEY = Boolean.getBoolean("flexlog.sim.failover.survey");

  private static final Set<Invariant> ENFORCED =
      SURVEY ? EnumSet.noneOf(Invariant.class) : EnumSet.allOf(Invariant.class);

  @Test
  void shouldReplayTheSameFailoverRunForTheSameSeed() {
    long seed = ONE_SEED != null ? ONE_SEED : 20261126L;
    SimWorld first = new SimWorld(seed, Faults.SYNC_TAKEOVER, ENFORCED);
    first.run(STEPS);
    SimWorld second = new SimWorld(seed, Faults.SYNC_TAKEOVER, ENFORCED);
    second.run(STEPS);
    assertThat(second.summary()).isEqualTo(first.summary());
    assertThat(second.history.acked).isEqualTo(first.history.acked);
    assertThat(second.violations).isEqualTo(first.violations);
  }

  /** (a) The leader crashes; a backup takes the role after the lease and the replicas follow. */
  @Test
  void shouldFailOverWhenTheLeaderCrashes() {
    Totals totals = runAll(11_000_000L, Faults.LEADER_CRASH);
    assertThat(total(totals.takeovers)).as("takeovers over all seeds").isGreaterThan(SEEDS);
    assertThat(total(totals.ackedAfterTakeover))
        .as("seeds with appends acknowledged after a takeover")
        .isGreaterThan(SEEDS / 2);
  }

  /** (b) The leader lives but is cut from the quorum: it stops issuing before a backup starts. */
  @Test
  void shouldFailOverWhenTheLeaderIsCutFromTheQuorum() {
    Totals totals = runAll(12_000_000L, Faults.LEASE_EXPIRY);
    assertThat(total(totals.takeovers)).as("takeovers over all seeds").isGreaterThan(SEEDS / 2);
  }

  /** (c) The leader is cut from the quorum and some replicas, still connected to the others. */
  @Test
  void shouldFailOverWhenTheLeaderIsPartitionedFromTheQuorumAndSomeReplicas() {
    Totals totals = runAll(13_000_000L, Faults.PARTITION);
    assertThat(total(totals.takeovers)).as("takeovers over all seeds").isGreaterThan(SEEDS / 2);
  }

  /** (d) Role changes overlap a replica's restart or link loss and its sync phase. */
  @Test
  void shouldFailOverDuringAReplicasSyncPhase() {
    Totals totals = runAll(14_000_000L, Faults.SYNC_TAKEOVER);
    assertThat(total(totals.takeovers)).as("takeovers over all seeds").isGreaterThan(SEEDS);
    assertThat(total(totals.syncOverlaps))
        .as("replica faults overlapping a leader failure")
        .isGreaterThan(SEEDS);
  }

  /**
   * Seeds of (d) that ordered a record a second time, found by a soak run before replicas kept the
   * tokens of trimmed records (docs/architecture.md#retention, "Trimmed tokens"): in 14000414 a
   * replica held a record pending while its peer committed it, trimmed it by retention and
   * restarted; in 14000287 both replicas did so while an atomic forwarder re-sent the member.
   */
  @Test
  void shouldNotOrderATrimmedRecordAgainAfterItsReplicasRestarted() {
    for (long seed : new long[] {14_000_414L, 14_000_287L}) {
      SimWorld world = new SimWorld(seed, Faults.SYNC_TAKEOVER, ENFORCED);
      world.run(STEPS);
      assertThat(world.violations).as("seed %d", seed).isEmpty();
      double kept =
          world.meters.find("flexlog.replica.trimmed.tokens").counters().stream()
              .mapToDouble(c -> c.count())
              .sum();
      assertThat(kept).as("tokens of trimmed records kept in seed %d", seed).isPositive();
    }
  }

  /**
   * Seeds found by a soak with other seeds (-Dflexlog.sim.seed.offset=100000), each replayed with
   * every invariant enforced (docs/architecture.md#fencing):
   *
   * <ul>
   *   <li>12100700 (b): a node lost the role and took it back; one replica took its answer of the
   *       earlier tenure (1.47), the other the new role object's answer for the same token (3.5).
   *       Replicas now take a moved role's answers only from the new leader's next WELCOME on.
   *   <li>15100176 (e): a subscriber of global skipped an SN that another delivered; holds with the
   *       same change.
   *   <li>16101710 (f): a replica on an older topology, still registered for a leaf shard at the
   *       node that had led the leaf and led global, took global's watermark 1.8 from it while
   *       global's SNs of that shard came through the leaf's new node, and told its subscriber the
   *       shard had nothing up to 1.8. A node now writes watermarks only to the replicas of shards
   *       whose own color it hosts.
   * </ul>
   */
  @Test
  void shouldKeepEveryInvariantInTheSeedsASoakWithOtherSeedsFound() {
    Map<Long, Faults> seeds =
        Map.of(
            12_100_700L, Faults.LEASE_EXPIRY,
            15_100_176L, Faults.TREE_LEADER_FAIL,
            16_101_710L, Faults.DEEP_TREE_FAIL);
    seeds.forEach(
        (seed, faults) -> {
          SimWorld world = new SimWorld(seed, faults, ENFORCED);
          world.run(STEPS);
          assertThat(world.violations).as("seed %d", seed).isEmpty();
        });
  }

  /**
   * (e) In a sequencer tree, the leader of {@code global} crashes or is cut from the quorum while
   * its child colors live on other nodes: their routes re-target to the new leader.
   */
  @Test
  void shouldHealTheTreeWhenAParentRoleFailsOver() {
    Totals totals = runAll(15_000_000L, Faults.TREE_LEADER_FAIL);
    assertThat(total(totals.takeovers)).as("takeovers over all seeds").isGreaterThan(SEEDS / 2);
    assertThat(total(totals.parentMoves))
        .as("roles moved while a child color lived on another node")
        .isGreaterThan(SEEDS / 2);
    assertThat(total(totals.ackedAfterTakeover))
        .as("seeds with appends acknowledged after a takeover")
        .isGreaterThan(SEEDS / 4);
  }

  /**
   * (f) In a three-level tree with a spare sequencer node, the leader of the middle color (or of
   * {@code global} or the leaf) fails: the spare takes the middle role and forwards {@code global}
   * further up, so the leaf's node re-targets its routes to a node that only forwards them.
   */
  @Test
  void shouldHealADeepTreeWhenARouteReTargetsToAForwardingNode() {
    Totals totals = runAll(16_000_000L, Faults.DEEP_TREE_FAIL);
    assertThat(total(totals.takeovers)).as("takeovers over all seeds").isGreaterThan(SEEDS / 2);
    assertThat(total(totals.forwardingMoves))
        .as("moves of a role with a child elsewhere to a node that does not lead its parent")
        .isGreaterThan(SEEDS / 2);
  }

  private static final class Totals {
    long parentMoves;
    long forwardingMoves;
    long acked;
    long takeovers;
    long retakes;
    long leaderFaults;
    long syncOverlaps;
    long ackedAfterTakeover;
    long smallCounterSeeds;
    long exhaustedSeeds;
    long exhaustedEpochs;
    long exhaustionTakes;
    long lateSameLeaderResponses;
    long abandoned;
    final Map<Invariant, StringBuilder> broken = new EnumMap<>(Invariant.class);
  }

  private static Totals runAll(long base, Faults faults) {
    Totals totals = new Totals();
    long steps = 0;
    long started = System.nanoTime();
    long[] seeds = SimSeeds.of(base, SEEDS);
    for (long seed : seeds) {
      SimWorld world = new SimWorld(seed, faults, ENFORCED);
      world.run(STEPS);
      for (Invariant invariant : world.violations.keySet()) {
        totals.broken.computeIfAbsent(invariant, k -> new StringBuilder()).append(' ').append(seed);
      }
      totals.acked += world.operationsAcked();
      totals.takeovers += world.failover.takeovers;
      totals.retakes += world.failover.retakes;
      totals.parentMoves += world.failover.parentMoves;
      totals.forwardingMoves += world.failover.forwardingMoves;
      totals.leaderFaults += world.failoverFaults().leaderFaults;
      totals.syncOverlaps += world.failoverFaults().syncOverlaps;
      totals.ackedAfterTakeover += world.failover.ackedAfterTakeover ? 1 : 0;
      totals.smallCounterSeeds += world.maxCounter < Sn.MAX_COUNTER ? 1 : 0;
      totals.exhaustedSeeds += world.failover.exhaustedEpochs.isEmpty() ? 0 : 1;
      totals.exhaustedEpochs += world.failover.exhaustedEpochs.size();
      totals.exhaustionTakes += world.failover.exhaustionTakes();
      totals.lateSameLeaderResponses += world.failover.lateSameLeaderResponses;
      totals.abandoned += world.retention.abandoned();
      steps += world.steps;
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    System.out.printf(
        "failover simulation, %s: %d seeds, %d steps in %.1f s (%.1f seeds/s), %d appends"
            + " acknowledged, %d leader faults, %d takeovers, %d retakes (restarted leaders, exhausted epochs),"
            + " %d replica faults overlapping a leader failure, %d moves of a parent role (%d to"
            + " a node that only forwards further up); %d seeds with a small counter limit, %d"
            + " of them exhausted %d leased epochs, %d roles taken again for a new epoch, %d"
            + " order responses of an earlier epoch of the same leader taken after the later one;"
            + " %d pending records abandoned for retention%n",
        faults,
        seeds.length,
        steps,
        seconds,
        seeds.length / seconds,
        totals.acked,
        totals.leaderFaults,
        totals.takeovers,
        totals.retakes,
        totals.syncOverlaps,
        totals.parentMoves,
        totals.forwardingMoves,
        totals.smallCounterSeeds,
        totals.exhaustedSeeds,
        totals.exhaustedEpochs,
        totals.exhaustionTakes,
        totals.lateSameLeaderResponses,
        totals.abandoned);
    totals.broken.forEach(
        (invariant, seedList) ->
            System.out.printf(
                "  %s broken in %d seeds:%s%n",
                invariant, seedList.toString().trim().split(" ").length, seedList));
    assertThat(totals.broken).as("invariants broken (survey), by seed").isEmpty();
    // A quarter of the seeds run with a small counter limit (SimWorld): their leased roles must
    // keep exhausting epochs and taking new ones, or this test no longer covers that.
    assertThat(total(totals.exhaustionTakes))
        .as("roles taken again for an exhausted epoch over all seeds")
        .isGreaterThan(seeds.length);
    return totals;
  }

  /** A total over all seeds; a replay of one seed is not held to the totals of a whole run. */
  private static long total(long value) {
    return ONE_SEED != null ? Long.MAX_VALUE : value;
  }
}
