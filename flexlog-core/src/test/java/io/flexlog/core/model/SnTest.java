package io.flexlog.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SnTest {

  @Test
  void epochIsTheHighWordAndCounterTheLowWord() {
    assertThat(Sn.of(0x12345678, 0x9abcdef0L)).isEqualTo(0x1234_5678_9abc_def0L);
    assertThat(Sn.of(1, 1)).isEqualTo((1L << 32) + 1);
  }

  @Test
  void decomposesIntoEpochAndCounter() {
    long sn = Sn.of(7, Sn.MAX_COUNTER);

    assertThat(Sn.epoch(sn)).isEqualTo(7);
    assertThat(Sn.counter(sn)).isEqualTo(Sn.MAX_COUNTER);
  }

  @Test
  void firstSnOfNextEpochIsAboveLastSnOfPreviousEpoch() {
    assertThat(Sn.of(4, 1)).isGreaterThan(Sn.of(3, Sn.MAX_COUNTER));
  }

  @Test
  void noneIsBelowEveryIssuedSn() {
    assertThat(Sn.NONE).isZero().isLessThan(Sn.of(0, 1));
  }

  @Test
  void rejectsCounterOutsideThirtyTwoUnsignedBits() {
    assertThatThrownBy(() -> Sn.of(1, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("counter out of range: -1");
    assertThatThrownBy(() -> Sn.of(1, Sn.MAX_COUNTER + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("counter out of range: 4294967296");
  }

  @Test
  void describesAsUnsignedEpochDotCounter() {
    assertThat(Sn.describe(Sn.of(3, 7))).isEqualTo("3.7");
    assertThat(Sn.describe(Sn.of(-1, 5))).isEqualTo("4294967295.5");
    assertThat(Sn.describe(Sn.NONE)).isEqualTo("0.0");
  }
}
