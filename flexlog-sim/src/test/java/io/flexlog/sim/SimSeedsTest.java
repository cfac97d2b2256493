package io.flexlog.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SimSeedsTest {
  @Test
  void shouldRunConsecutiveSeedsFromTheBaseMovedByTheOffset() {
    assertThat(SimSeeds.range(14_000_000L, 3, 0))
        .containsExactly(14_000_000L, 14_000_001L, 14_000_002L);
    assertThat(SimSeeds.range(14_000_000L, 2, 100_000)).containsExactly(14_100_000L, 14_100_001L);
  }

  @Test
  void shouldRefuseAnOffsetThatReachesIntoTheNextTestsSeeds() {
    assertThatThrownBy(() -> SimSeeds.range(14_000_000L, 2_000, 999_000))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("flexlog.sim.seed.offset 999000 with 2000 seeds");
    assertThatThrownBy(() -> SimSeeds.range(14_000_000L, 1, -1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
