package io.flexlog.sim;

/**
 * The seeds a simulation test runs: {@code count} consecutive seeds from its base, or the one seed
 * that {@code -Dflexlog.sim.seed=N} replays.
 *
 * <p>{@code -Dflexlog.sim.seed.offset=N} moves every test's range N seeds up, so that a soak run
 * explores seeds that the builds and earlier soaks never ran (docs/testing.md, "Seeds"). The test
 * bases lie a million apart; an offset at or above that, or below zero, is refused rather than let
 * one test run another's seeds.
 */
final class SimSeeds {
  static final long BASE_SPACING = 1_000_000L;

  private SimSeeds() {}

  /** The seeds of a test whose range starts at {@code base}. */
  static long[] of(long base, int count) {
    Long one = Long.getLong("flexlog.sim.seed");
    if (one != null) {
      return new long[] {one};
    }
    return range(base, count, Long.getLong("flexlog.sim.seed.offset", 0L));
  }

  static long[] range(long base, int count, long offset) {
    if (offset < 0 || offset + count > BASE_SPACING) {
      throw new IllegalArgumentException(
          "flexlog.sim.seed.offset "
              + offset
              + " with "
              + count
              + " seeds leaves [0, "
              + BASE_SPACING
              + "), the distance between two tests' seed ranges");
    }
    long[] seeds = new long[count];
    for (int i = 0; i < count; i++) {
      seeds[i] = base + offset + i;
    }
    return seeds;
  }
}
