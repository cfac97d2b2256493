package io.flexlog.core.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.testing.SeededRuns;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/** Sn composition and ordering on seeded random epochs and counters; a failure names its seed. */
class SnPropertyTest {
  private static final int ITERATIONS = 1_000;
  private static final long MAX_COUNTER = 0xFFFF_FFFFL;
  static final long[] SEEDS = SeededRuns.SEEDS;

  @ParameterizedTest
  @FieldSource("SEEDS")
  void epochAndCounterSurviveComposition(long seed) {
    SeededRuns.replay(
        seed,
        ITERATIONS,
        random -> {
          int epoch = anyInt(random);
          long counter = counter(random);
          long sn = Sn.of(epoch, counter);

          assertThat(Sn.epoch(sn)).isEqualTo(epoch);
          assertThat(Sn.counter(sn)).isEqualTo(counter);
        });
  }

  @ParameterizedTest
  @FieldSource("SEEDS")
  void everySnOfALaterEpochIsLarger(long seed) {
    SeededRuns.replay(
        seed,
        ITERATIONS,
        random -> {
          int epoch = nonNegativeInt(random);
          int laterEpoch = nonNegativeInt(random);
          if (epoch == laterEpoch) {
            return;
          }
          if (epoch > laterEpoch) {
            int swap = epoch;
            epoch = laterEpoch;
            laterEpoch = swap;
          }
          long counter = counter(random);
          long laterCounter = counter(random);

          assertThat(Sn.of(laterEpoch, laterCounter)).isGreaterThan(Sn.of(epoch, counter));
        });
  }

  @ParameterizedTest
  @FieldSource("SEEDS")
  void withinAnEpochSnsFollowTheCounter(long seed) {
    SeededRuns.replay(
        seed,
        ITERATIONS,
        random -> {
          int epoch = nonNegativeInt(random);
          long counter = counter(random);
          long other = random.nextInt(4) == 0 ? counter : counter(random);

          assertThat(Long.compare(Sn.of(epoch, counter), Sn.of(epoch, other)))
              .isEqualTo(Long.compare(counter, other));
        });
  }

  /** Any int, one in eight an edge value. */
  private static int anyInt(Random random) {
    int[] edges = {0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE};
    return random.nextInt(8) == 0 ? edges[random.nextInt(edges.length)] : random.nextInt();
  }

  private static int nonNegativeInt(Random random) {
    int[] edges = {0, 1, Integer.MAX_VALUE - 1, Integer.MAX_VALUE};
    return random.nextInt(8) == 0
        ? edges[random.nextInt(edges.length)]
        : random.nextInt(Integer.MAX_VALUE) + random.nextInt(2);
  }

  /** A counter in [0, 2^32 - 1], one in eight an edge value. */
  private static long counter(Random random) {
    long[] edges = {0, 1, MAX_COUNTER - 1, MAX_COUNTER};
    return random.nextInt(8) == 0
        ? edges[random.nextInt(edges.length)]
        : random.nextLong(MAX_COUNTER + 1);
  }
}
