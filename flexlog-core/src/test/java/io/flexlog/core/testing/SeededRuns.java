package io.flexlog.core.testing;

import java.util.Random;
import java.util.function.Consumer;

/**
 * Runs a randomized check from fixed seeds so that every build tries the same inputs, and names the
 * seed and iteration when a check fails: {@code SeededRuns.replay(seed, ...)} with that seed
 * repeats the failing run exactly.
 */
public final class SeededRuns {
  /** The seeds every randomized test in the build starts from. */
  public static final long[] SEEDS = {
    1L, 2L, 3L, 42L, 0xF1E7_1064L, 0x5EED_0001L, -1L, 7_919L, 1_000_003L, 0x7FFF_FFFF_FFFF_FFFFL
  };

  private SeededRuns() {}

  /**
   * Calls {@code check} {@code iterations} times, all drawing from one {@link Random} seeded with
   * {@code seed}; a failure is rethrown with the seed and the iteration in its message.
   */
  public static void replay(long seed, int iterations, Consumer<Random> check) {
    Random random = new Random(seed);
    for (int i = 0; i < iterations; i++) {
      try {
        check.accept(random);
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(
            "failed with seed " + seed + " at iteration " + i + ": " + e.getMessage(), e);
      }
    }
  }
}
