package io.flexlog.sequencer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.flexlog.sequencer.TreeSimulation.Faults;
import io.flexlog.sequencer.net.SequencerChannelHandler;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@link TreeSimulation} for many seeds: each seed picks a tree (a root with leaves, a
 * chain, a subtree on one node, random placements; sometimes growing by later topology versions)
 * and an interleaving of deliveries, turns, appends and faults. A failure names the seed and the
 * last events; rerun one seed with {@code -Dflexlog.sim.seed=N}.
 */
class SequencerTreeSimulationTest {
  private static final int SEEDS = 200;
  private static final int STEPS = 1500;
  private static final String SEED_PROPERTY = "flexlog.sim.seed";
  private static final boolean ALL_SEEDS = System.getProperty(SEED_PROPERTY) == null;
  private static final Logger SEQUENCER_LOG = (Logger) LoggerFactory.getLogger("io.flexlog");
  private static Level savedLevel;
  private static final Logger HANDLER_LOG =
      (Logger) LoggerFactory.getLogger(SequencerChannelHandler.class);
  private static Level savedHandlerLevel;

  // Reconnects and refusals are logged at INFO and WARN; thousands of them only slow the run. The
  // handler's warnings stay: one means a node closed a connection, which fails the run anyway.
  @BeforeAll
  static void quietLogs() {
    savedLevel = SEQUENCER_LOG.getLevel();
    savedHandlerLevel = HANDLER_LOG.getLevel();
    SEQUENCER_LOG.setLevel(Level.ERROR);
    HANDLER_LOG.setLevel(Level.WARN);
  }

  @AfterAll
  static void restoreLogs() {
    SEQUENCER_LOG.setLevel(savedLevel);
    HANDLER_LOG.setLevel(savedHandlerLevel);
  }

  @Test
  void shouldReplayTheSameHistoryForTheSameSeed() {
    TreeSimulation first = new TreeSimulation(42, Faults.CRASHES);
    first.run(STEPS);
    TreeSimulation second = new TreeSimulation(42, Faults.CRASHES);
    second.run(STEPS);

    assertThat(second.summary()).isEqualTo(first.summary());
    assertThat(second.trace()).isEqualTo(first.trace());
  }

  @Test
  void shouldKeepSnsUniqueAndIncreasingAndWatermarksBehindResponsesWhenNodesCrash() {
    Totals totals = runAll(0, Faults.CRASHES, STEPS);

    assumeTrue(ALL_SEEDS);
    assertThat(totals.issued).as("SNs issued over all seeds").isGreaterThan(SEEDS * 50L);
    assertThat(totals.crashes).as("node crashes over all seeds").isGreaterThan(SEEDS);
  }

  @Test
  void shouldNeverSpendASecondRangeOnAResentRequestWhenConnectionsDrop() {
    Totals totals = runAll(1_000_000, Faults.DROPS, STEPS);

    assumeTrue(ALL_SEEDS);
    assertThat(totals.drops).as("dropped connections over all seeds").isGreaterThan(SEEDS);
    assertThat(totals.crashes).isZero();
  }

  @Test
  void shouldOrderEveryTokenOnAReliableNetwork() {
    Totals totals = runAll(2_000_000, Faults.NONE, STEPS / 2);

    assumeTrue(ALL_SEEDS);
    assertThat(totals.drops + totals.crashes).isZero();
    assertThat(totals.issued).isGreaterThan(SEEDS * 20L);
    assertThat(totals.marks).as("join marks that reached replicas of growing trees").isPositive();
  }

  private static final class Totals {
    long issued;
    long crashes;
    long drops;
    long marks;
  }

  private static Totals runAll(long seedBase, Faults faults, int steps) {
    Totals totals = new Totals();
    for (long seed : seeds(seedBase)) {
      TreeSimulation sim = new TreeSimulation(seed, faults);
      sim.run(steps);
      totals.issued += sim.issued;
      totals.crashes += sim.crashes;
      totals.drops += sim.drops;
      totals.marks += sim.replicas.stream().mapToLong(r -> r.marks).sum();
    }
    return totals;
  }

  private static long[] seeds(long base) {
    String one = System.getProperty(SEED_PROPERTY);
    if (one != null) {
      return new long[] {Long.parseLong(one)};
    }
    long[] seeds = new long[SEEDS];
    for (int i = 0; i < SEEDS; i++) {
      seeds[i] = base + i;
    }
    return seeds;
  }
}
