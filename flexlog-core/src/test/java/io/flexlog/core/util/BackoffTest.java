package io.flexlog.core.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BackoffTest {

  @Test
  void shouldDoubleFromTheInitialDelayUpToTheMaximum() {
    Backoff backoff = Backoff.doublingMs(50, 1000);

    assertThat(delaysMs(backoff, 8))
        .containsExactly(50L, 100L, 200L, 400L, 800L, 1000L, 1000L, 1000L);
  }

  @Test
  void shouldStartOverAtTheInitialDelayAfterReset() {
    Backoff backoff = Backoff.doublingMs(50, 1000);
    delaysMs(backoff, 5);

    backoff.reset();

    assertThat(delaysMs(backoff, 3)).containsExactly(50L, 100L, 200L);
  }

  @Test
  void shouldGrowByTheMultiplier() {
    Backoff backoff = new Backoff(Duration.ofMillis(10), Duration.ofMillis(100), 3.0);

    assertThat(delaysMs(backoff, 4)).containsExactly(10L, 30L, 90L, 100L);
  }

  @Test
  void shouldGiveTheDelayOfANumberedAttemptWithoutChangingState() {
    Backoff backoff = new Backoff(Duration.ofNanos(50), Duration.ofNanos(2_000), 2.0);

    assertThat(backoff.delayNs(0)).isEqualTo(50);
    assertThat(backoff.delayNs(3)).isEqualTo(400);
    assertThat(backoff.delayNs(6)).isEqualTo(2_000);
    assertThat(backoff.delayNs(10_000)).isEqualTo(2_000);
    assertThat(backoff.nextDelayNs()).isEqualTo(50);
  }

  @Test
  void shouldShortenEachDelayByAtMostTheJitterFraction() {
    Backoff backoff =
        new Backoff(Duration.ofMillis(100), Duration.ofMillis(800), 2.0, 0.5, new Random(7));
    long[] full = {100, 200, 400, 800, 800, 800};
    List<Long> delays = new ArrayList<>();
    for (long fullMs : full) {
      long delayNs = backoff.nextDelayNs();
      delays.add(delayNs);
      assertThat(delayNs).isBetween(fullMs * 500_000L, fullMs * 1_000_000L);
    }

    assertThat(delays).doesNotHaveDuplicates();
  }

  @Test
  void shouldDrawTheSameJitterFromTheSameSeed() {
    Backoff first =
        new Backoff(Duration.ofMillis(10), Duration.ofSeconds(1), 2.0, 1.0, new Random(3));
    Backoff second =
        new Backoff(Duration.ofMillis(10), Duration.ofSeconds(1), 2.0, 1.0, new Random(3));

    assertThat(delaysMs(first, 10)).isEqualTo(delaysMs(second, 10));
  }

  @Test
  void shouldRejectSettingsThatCannotBackOff() {
    assertThatThrownBy(() -> Backoff.doublingMs(0, 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0 < initial <= max");
    assertThatThrownBy(() -> Backoff.doublingMs(20, 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0 < initial <= max");
    assertThatThrownBy(() -> new Backoff(Duration.ofMillis(1), Duration.ofMillis(2), 0.5))
        .hasMessageContaining("multiplier must be >= 1");
    assertThatThrownBy(
            () -> new Backoff(Duration.ofMillis(1), Duration.ofMillis(2), 2.0, 1.5, new Random()))
        .hasMessageContaining("jitter must be in [0, 1]");
    assertThatThrownBy(
            () -> new Backoff(Duration.ofMillis(1), Duration.ofMillis(2), 2.0, 0.1, null))
        .isInstanceOf(NullPointerException.class);
  }

  private static List<Long> delaysMs(Backoff backoff, int count) {
    List<Long> delays = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      delays.add(backoff.nextDelayMs());
    }
    return delays;
  }
}
