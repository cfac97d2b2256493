package io.flexlog.bench.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SideResultTest {

  @Test
  void shouldCountViolationsWhenAnSnDoesNotIncrease() {
    ClientStats stats = new ClientStats();
    stats.onAnswer(5, false, 0, 0);
    stats.onAnswer(7, false, 0, 0);
    stats.onAnswer(7, false, 0, 0);
    stats.onAnswer(6, false, 0, 0);
    stats.onAnswer(8, false, 0, 0);

    assertThat(stats.orderViolations()).isEqualTo(2);
    assertThat(stats.answered()).isEqualTo(5);
    assertThat(stats.measuredAnswers()).isZero();
    assertThat(stats.lastSn()).isEqualTo(8);
  }

  @Test
  void shouldMeasureOnlyRequestsIssuedDuringTheMeasurement() {
    ClientStats stats = new ClientStats();
    stats.onAnswer(1, false, 5_000_000, 100);
    stats.onAnswer(2, true, 20_000, 200);
    stats.onAnswer(3, true, 40_000, 300);

    assertThat(stats.measuredAnswers()).isEqualTo(2);
    assertThat(stats.latencyNs().getTotalCount()).isEqualTo(2);
    assertThat(stats.lastMeasuredAnswerNs()).isEqualTo(300);
  }

  @Test
  void shouldCombineClientsOverTheTimeToTheLastMeasuredAnswer() {
    ClientStats a = new ClientStats();
    ClientStats b = new ClientStats();
    for (int i = 1; i <= 100; i++) {
      a.onAnswer(i, true, i * 1_000L, 1_000_000_000L + i);
    }
    for (int i = 101; i <= 200; i++) {
      b.onAnswer(i, true, i * 1_000L, 1_500_000_000L);
    }

    SideResult r =
        SideResult.of("flexlog loopback", "d", List.of(a, b), 500_000_000L, Optional.empty());

    assertThat(r.sns()).isEqualTo(200);
    assertThat(r.elapsedNs()).isEqualTo(1_000_000_000L);
    assertThat(r.snsPerSec()).isEqualTo(200.0);
    assertThat(r.p50Us()).isBetween(99.9, 100.1);
    assertThat(r.p99Us()).isBetween(197.9, 198.1);
    assertThat(r.maxUs()).isBetween(199.9, 200.1);
    assertThat(r.isValid()).isTrue();
  }

  @Test
  void shouldBeInvalidWithoutMeasuredSnsOrWithAFailure() {
    SideResult empty = SideResult.of("x", "d", List.of(new ClientStats()), 0, Optional.empty());
    ClientStats one = new ClientStats();
    one.onAnswer(1, true, 1_000, 10);
    SideResult failed = SideResult.of("x", "d", List.of(one), 0, Optional.of("lost"));

    assertThat(empty.isValid()).isFalse();
    assertThat(empty.snsPerSec()).isZero();
    assertThat(failed.isValid()).isFalse();
  }
}
