package io.flexlog.core.model;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

class SnPropertyTest {

  @Property
  void epochAndCounterSurviveComposition(
      @ForAll int epoch, @ForAll @LongRange(min = 0, max = 0xFFFF_FFFFL) long counter) {
    long sn = Sn.of(epoch, counter);

    assertThat(Sn.epoch(sn)).isEqualTo(epoch);
    assertThat(Sn.counter(sn)).isEqualTo(counter);
  }

  @Property
  void everySnOfALaterEpochIsLarger(
      @ForAll @IntRange(min = 0) int epoch,
      @ForAll @IntRange(min = 0) int laterEpoch,
      @ForAll @LongRange(min = 0, max = 0xFFFF_FFFFL) long counter,
      @ForAll @LongRange(min = 0, max = 0xFFFF_FFFFL) long laterCounter) {
    Assume.that(epoch < laterEpoch);

    assertThat(Sn.of(laterEpoch, laterCounter)).isGreaterThan(Sn.of(epoch, counter));
  }

  @Property
  void withinAnEpochSnsFollowTheCounter(
      @ForAll @IntRange(min = 0) int epoch,
      @ForAll @LongRange(min = 0, max = 0xFFFF_FFFFL) long counter,
      @ForAll @LongRange(min = 0, max = 0xFFFF_FFFFL) long other) {
    assertThat(Long.compare(Sn.of(epoch, counter), Sn.of(epoch, other)))
        .isEqualTo(Long.compare(counter, other));
  }
}
