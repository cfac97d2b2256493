package io.flexlog.client.internals;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The re-send time after a lost connection: doubling, capped, per node, jittered. */
class ReconnectBackoffTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void shouldDoubleFromFiftyMillisecondsUpToOneSecondWithinTwentyPercent() {
    ReconnectBackoff backoff = new ReconnectBackoff(30 * SECOND, new Random(7));
    long now = 5 * SECOND;
    long nominal = ReconnectBackoff.BASE_NS;
    for (int loss = 1; loss <= 10; loss++) {
      long delay = backoff.onLost(4, now) - now;
      long expected = Math.min(nominal, ReconnectBackoff.MAX_NS);
      assertThat(delay)
          .as("loss %d", loss)
          .isBetween((long) (expected * 0.8), Math.min(ReconnectBackoff.MAX_NS, expected * 6 / 5));
      now += delay; // the re-send's connect fails again right away: the node is still down
      nominal *= 2;
    }
  }

  @Test
  void shouldStartAgainAfterAQuietPeriodAndCountEachNodeApart() {
    ReconnectBackoff backoff = new ReconnectBackoff(30 * SECOND, new Random(7));
    long now = 0;
    for (int loss = 0; loss < 6; loss++) {
      now = backoff.onLost(4, now);
    }
    assertThat(backoff.onLost(5, now) - now).as("another node").isLessThan(61_000_000L);
    assertThat(backoff.onLost(4, now) - now).as("node 4, still failing").isGreaterThan(SECOND / 2);

    now += ReconnectBackoff.QUIET_NS + 1;
    assertThat(backoff.onLost(4, now) - now)
        .as("node 4, after a quiet period")
        .isLessThan(61_000_000L);
  }

  @Test
  void shouldNeverWaitLongerThanTheRequestTimeout() {
    long requestTimeoutNs = 200_000_000L;
    ReconnectBackoff backoff = new ReconnectBackoff(requestTimeoutNs, new Random(7));
    long now = 0;
    for (int loss = 0; loss < 40; loss++) {
      long next = backoff.onLost(1, now);
      assertThat(next - now).isPositive().isLessThanOrEqualTo(requestTimeoutNs);
      now = next;
    }
  }

  @Test
  void shouldSpreadTheClientsThatLostTheSameNodeAtTheSameInstant() {
    Set<Long> times = new HashSet<>();
    for (int client = 0; client < 100; client++) {
      long at = new ReconnectBackoff(30 * SECOND, new Random(client)).onLost(1, 0);
      assertThat(at).isBetween(40_000_000L, 60_000_000L);
      times.add(at);
    }
    assertThat(times).as("distinct re-send times").hasSizeGreaterThan(90);
  }
}
