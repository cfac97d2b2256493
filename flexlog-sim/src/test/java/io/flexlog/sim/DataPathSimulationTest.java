package io.flexlog.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.sim.SimWorld.Faults;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * Runs the whole-data-path {@link SimWorld} for many seeds: each seed picks a cluster (flat or a
 * sequencer tree), a counter limit that forces epoch changes, and an interleaving of deliveries,
 * turns, appends, reads, subscription polls and faults. A failure names the seed and the last
 * events; {@code -Dflexlog.sim.seed=N} replays one seed, {@code -Dflexlog.sim.seeds=N} runs N seeds
 * per test (the {@code sim-soak} profile runs thousands), {@code -Dflexlog.sim.trace=N} keeps the
 * last N events.
 *
 * <p>Without faults every {@link Invariant} is enforced. With faults, the invariants that the
 * protocol does not keep yet (the sync phase and fencing of issue 16 are not built) are counted and
 * printed instead, so the runs still check everything else; the tests that enforce them too are
 * disabled until issue 16 lands. docs/testing.md lists which invariant each mode enforces.
 */
class DataPathSimulationTest {
  private static final int SEEDS = Integer.getInteger("flexlog.sim.seeds", 100);
  private static final int STEPS = Integer.getInteger("flexlog.sim.steps", 400);
  private static final Long ONE_SEED = Long.getLong("flexlog.sim.seed");

  /**
   * What the protocol does not keep when connections drop: a subscriber skips or stalls on an
   * acknowledged record (issue 16; the sync phase of issue 10 is not built).
   */
  private static final Set<Invariant> NOT_YET_UNDER_FAULTS =
      EnumSet.of(Invariant.SUBSCRIBERS_AGREE, Invariant.SUBSCRIBERS_COMPLETE);

  /**
   * When processes crash an append can also be acknowledged at two SNs: a record that reaches a
   * replica after its token sync is ordered again in the new epoch (issue 16).
   */
  private static final Set<Invariant> NOT_YET_UNDER_CRASHES =
      EnumSet.of(
          Invariant.SUBSCRIBERS_AGREE, Invariant.SUBSCRIBERS_COMPLETE, Invariant.ONE_SN_PER_TOKEN);

  @Test
  void shouldReplayTheSameRunForTheSameSeed() {
    long seed = ONE_SEED != null ? ONE_SEED : 20261124L;
    Set<Invariant> enforced = EnumSet.complementOf(EnumSet.copyOf(NOT_YET_UNDER_CRASHES));
    SimWorld first = new SimWorld(seed, Faults.CRASHES, enforced);
    first.run(STEPS);
    SimWorld second = new SimWorld(seed, Faults.CRASHES, enforced);
    second.run(STEPS);
    assertThat(second.summary()).isEqualTo(first.summary());
    assertThat(second.history.acked).isEqualTo(first.history.acked);
    assertThat(second.violations).isEqualTo(first.violations);
  }

  @Test
  void shouldKeepEveryInvariantOnAReliableNetwork() {
    Totals totals = runAll(1_000_000L, Faults.NONE, Set.of());
    assertThat(totals.acked).as("appends acknowledged over all seeds").isGreaterThan(SEEDS * 10L);
  }

  @Test
  void shouldKeepTheLogInvariantsWhenConnectionsDrop() {
    Totals totals = runAll(2_000_000L, Faults.DROPS, NOT_YET_UNDER_FAULTS);
    assertThat(totals.drops).as("dropped connections over all seeds").isGreaterThan(SEEDS);
  }

  @Test
  void shouldKeepTheLogInvariantsWhenProcessesCrashOneAtATime() {
    Totals totals = runAll(3_000_000L, Faults.CRASH_ONE, NOT_YET_UNDER_CRASHES);
    assertThat(totals.crashes).as("process crashes over all seeds").isGreaterThan(SEEDS / 2);
  }

  @Test
  void shouldKeepTheLogInvariantsWhenSeveralProcessesAreDownAtOnce() {
    Totals totals = runAll(4_000_000L, Faults.CRASHES, NOT_YET_UNDER_CRASHES);
    assertThat(totals.crashes).as("process crashes over all seeds").isGreaterThan(SEEDS);
  }

  @Test
  @Disabled("issue 16: subscribers skip or stall on acknowledged records after drops and crashes")
  void shouldKeepEveryInvariantUnderEveryFault() {
    runAll(2_000_000L, Faults.DROPS, Set.of());
    runAll(3_000_000L, Faults.CRASH_ONE, Set.of());
    runAll(4_000_000L, Faults.CRASHES, Set.of());
  }

  private static final class Totals {
    long acked;
    long groups;
    long drops;
    long crashes;
  }

  private static Totals runAll(long base, Faults faults, Set<Invariant> counted) {
    Set<Invariant> enforced = EnumSet.allOf(Invariant.class);
    enforced.removeAll(counted);
    Totals totals = new Totals();
    Map<Invariant, Integer> seedsViolating = new EnumMap<>(Invariant.class);
    Map<Invariant, Long> firstSeed = new EnumMap<>(Invariant.class);
    long steps = 0;
    long started = System.nanoTime();
    long[] seeds = ONE_SEED != null ? new long[] {ONE_SEED} : range(base, SEEDS);
    for (long seed : seeds) {
      SimWorld world = new SimWorld(seed, faults, enforced);
      world.run(STEPS);
      totals.acked += world.operationsAcked();
      totals.groups += world.groupsAcked();
      totals.drops += world.network.drops;
      totals.crashes += world.crashes;
      steps += world.steps;
      for (Invariant broken : world.violations.keySet()) {
        seedsViolating.merge(broken, 1, Integer::sum);
        firstSeed.putIfAbsent(broken, seed);
      }
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    System.out.printf(
        "data-path simulation, %s: %d seeds, %d steps in %.1f s (%.1f seeds/s, %.0f steps/s),"
            + " %d appends and %d atomic groups acknowledged, %d connection losses, %d crashes;"
            + " seeds violating a counted invariant: %s (first seeds: %s)%n",
        faults,
        seeds.length,
        steps,
        seconds,
        seeds.length / seconds,
        steps / seconds,
        totals.acked,
        totals.groups,
        totals.drops,
        totals.crashes,
        seedsViolating,
        firstSeed);
    return totals;
  }

  private static long[] range(long base, int count) {
    long[] seeds = new long[count];
    for (int i = 0; i < count; i++) {
      seeds[i] = base + i;
    }
    return seeds;
  }
}
