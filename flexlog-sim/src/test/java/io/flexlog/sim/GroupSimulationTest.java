package io.flexlog.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.sim.SimWorld.Faults;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/**
 * Consumer groups in the whole-data-path {@link SimWorld}: members running the production group
 * logic ({@link SimGroupMember}) on simulated clients coordinate through a group color and read the
 * shards of a color that the world's clients append to, over the production replicas and sequencer,
 * while members join, leave, close, crash and stall and the world drops connections and crashes
 * processes. The group's invariants ({@code GROUP_*} in {@link Invariant}) are checked as the log
 * is applied and records are processed, the data path's after every step; once healed the group
 * must converge and have processed every record. docs/testing.md describes the run.
 *
 * <p>{@code -Dflexlog.sim.group.seeds=N} runs N seeds per test (the {@code sim-soak} profile runs
 * more), {@code -Dflexlog.sim.seed=N} replays one, {@code -Dflexlog.sim.trace=N} keeps the last N
 * events.
 */
class GroupSimulationTest {
  private static final int SEEDS = Integer.getInteger("flexlog.sim.group.seeds", 100);
  private static final int STEPS = Integer.getInteger("flexlog.sim.group.steps", 2000);
  private static final Long ONE_SEED = Long.getLong("flexlog.sim.seed");

  /** The data path's faults, by seed modulo 3: none, lost connections, crashes one at a time. */
  private static final Faults[] MODES = {Faults.NONE, Faults.DROPS, Faults.CRASH_ONE};

  @Test
  void shouldReplayTheSameGroupRunForTheSameSeed() {
    long seed = ONE_SEED != null ? ONE_SEED : 20261126L;
    assertThat(run(seed).summary()).isEqualTo(run(seed).summary());
  }

  /**
   * Members join, leave, close, crash and stall their polls past max.poll.interval.ms, and commit
   * whenever they like, also after losing shards; the world loses connections or crashes a replica
   * or the sequencer at a time, or neither.
   */
  @Test
  void shouldKeepTheGroupInvariantsWhileMembersAndProcessesFail() {
    long started = System.nanoTime();
    long[] seeds = SimSeeds.of(21_000_000L, SEEDS);
    Totals totals = new Totals();
    for (long seed : seeds) {
      Run run = run(seed);
      totals.add(run);
    }
    System.out.printf(
        "group simulation: %d seeds in %.1f s, %s, every invariant held%n",
        seeds.length, (System.nanoTime() - started) / 1e9, totals);
    if (ONE_SEED == null) {
      assertThat(totals.memberCrashes).as("member crashes").isGreaterThan(SEEDS);
      assertThat(totals.stalls).as("members that stalled their polls").isGreaterThan(SEEDS);
      assertThat(totals.processCrashes)
          .as("replica and sequencer crashes")
          .isGreaterThan(SEEDS / 3);
      assertThat(totals.accepted).as("commits accepted").isGreaterThan(SEEDS * 5L);
      assertThat(totals.rejected).as("commits rejected by fencing").isGreaterThan(SEEDS / 4);
      assertThat(totals.told).as("rejections the member was told").isGreaterThan(SEEDS / 10);
      // 100 seeds: 77 valid checkpoints, 19 trims, 6 members resumed (most checkpoints of these
      // busy runs are spoilt by a record ordered between them and the SN they are based on).
      assertThat(totals.checkpoints)
          .as("valid checkpoints of the group log")
          .isGreaterThan(SEEDS / 4);
      assertThat(totals.trims).as("trims of the group log").isGreaterThan(SEEDS / 10);
      assertThat(totals.restores)
          .as("members that resumed from a checkpoint after a trim")
          .isGreaterThan(SEEDS / 50);
    }
  }

  private record Run(SimWorld world, SimGroup group) {
    String summary() {
      return world.summary() + "; " + group.summary();
    }
  }

  private static Run run(long seed) {
    SimWorld world =
        new SimWorld(
            seed,
            MODES[(int) Math.floorMod(seed, 3L)],
            EnumSet.allOf(Invariant.class),
            SimGroup::scenario);
    SimGroup group = new SimGroup(world);
    world.run(STEPS);
    return new Run(world, group);
  }

  private static final class Totals {
    long memberCrashes;
    long stalls;
    long processCrashes;
    long drops;
    long records;
    long accepted;
    long rejected;
    long told;
    long processed;
    long again;
    long checkpoints;
    long trims;
    long restores;

    void add(Run run) {
      SimGroupReferee referee = run.group.referee;
      memberCrashes += run.group.crashes;
      stalls += run.group.stalls;
      processCrashes += run.world.crashes;
      drops += run.world.network.drops;
      records += referee.recordsApplied;
      accepted += referee.commitsAccepted;
      rejected += referee.commitsRejected;
      told += referee.rejectionsTold;
      processed += referee.processed.size();
      again += referee.duplicates;
      checkpoints += referee.checkpoints;
      trims += referee.trims;
      restores += referee.restores;
    }

    @Override
    public String toString() {
      return String.format(
          "%d member crashes, %d stalls, %d replica or sequencer crashes, %d connection losses,"
              + " %d group records, %d commits accepted, %d rejected by fencing (%d told to their"
              + " member), %d records processed (%d more than once), %d valid checkpoints, %d trims,"
              + " %d members resumed from a checkpoint",
          memberCrashes,
          stalls,
          processCrashes,
          drops,
          records,
          accepted,
          rejected,
          told,
          processed,
          again,
          checkpoints,
          trims,
          restores);
    }
  }
}
