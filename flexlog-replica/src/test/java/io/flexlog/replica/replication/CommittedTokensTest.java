package io.flexlog.replica.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.model.Sn;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class CommittedTokensTest {

  @Test
  void shouldAnswerEveryTokenOfTheWindowAndForgetOlderOnes() {
    CommittedTokens tokens = new CommittedTokens(1000);
    for (long sequence = 1; sequence <= 5000; sequence++) {
      tokens.put(7, sequence, 100 + sequence);
    }
    for (long sequence = 4001; sequence <= 5000; sequence++) {
      assertThat(tokens.get(7, sequence)).as("sequence %d", sequence).isEqualTo(100 + sequence);
    }
    // The ring may keep a few older ones (it is a power of two long), never more than it holds.
    assertThat(tokens.get(7, 1)).isEqualTo(Sn.NONE);
    assertThat(tokens.get(7, 5001)).isEqualTo(Sn.NONE);
    assertThat(tokens.get(8, 5000)).isEqualTo(Sn.NONE);
    assertThat(tokens.slots()).isLessThanOrEqualTo(1024);
  }

  @Test
  void shouldRememberSequencesThatArriveOutOfOrderAndStrided() {
    // A producer that spreads one session over 8 shards: this replica sees every 8th sequence,
    // retries and batches come back late and in any order.
    CommittedTokens tokens = new CommittedTokens(1 << 12);
    Map<Long, Long> model = new HashMap<>();
    SplittableRandom random = new SplittableRandom(42);
    long newest = 0;
    for (int n = 0; n < 20_000; n++) {
      long sequence = Math.max(1, newest + 8 - random.nextLong(64));
      newest = Math.max(newest, sequence);
      model.putIfAbsent(sequence, 1_000_000L + sequence);
      tokens.put(3, sequence, model.get(sequence));
      for (int k = 0; k < 4; k++) {
        long probe = newest - random.nextLong(1 << 12);
        Long expected = model.get(probe);
        if (expected != null) {
          assertThat(tokens.get(3, probe))
              .as("sequence %d after %d puts", probe, n)
              .isEqualTo(expected);
        }
      }
    }
  }

  @Test
  void shouldForgetTheLeastRecentlyUsedSessionsBeyondItsBudget() {
    CommittedTokens tokens = new CommittedTokens(64);
    tokens.put(1, 1, 11);
    for (long session = 2; session <= 100; session++) {
      tokens.put(session, 1, 10 * session + 1);
      tokens.put(1, session, 10 + session); // session 1 stays the most recently used
    }
    assertThat(tokens.slots()).isLessThanOrEqualTo(128);
    assertThat(tokens.sessions()).isLessThan(100);
    assertThat(tokens.get(1, 100)).isEqualTo(110);
    assertThat(tokens.get(100, 1)).isEqualTo(1001);
    assertThat(tokens.get(2, 1))
        .as("the least recently used session is forgotten")
        .isEqualTo(Sn.NONE);
  }

  @Test
  void shouldKeepOneBusySessionFromPushingOutAnotherWithinTheBudget() {
    CommittedTokens tokens = new CommittedTokens(1 << 10);
    tokens.put(1, 1, 5);
    for (long sequence = 1; sequence <= 100_000; sequence++) {
      tokens.put(2, sequence, sequence + 10);
    }
    assertThat(tokens.get(1, 1)).isEqualTo(5);
    assertThat(tokens.get(2, 100_000)).isEqualTo(100_010);
  }

  @Test
  void shouldIgnoreSequencesOlderThanTheWindowAndSurviveExtremeValues() {
    CommittedTokens tokens = new CommittedTokens(16);
    tokens.put(1, Long.MAX_VALUE, 9);
    tokens.put(1, Long.MIN_VALUE, 8);
    tokens.put(1, -5, 7);
    assertThat(tokens.get(1, Long.MAX_VALUE)).isEqualTo(9);
    assertThat(tokens.get(1, Long.MIN_VALUE)).isEqualTo(Sn.NONE);
    assertThat(tokens.get(1, -5)).isEqualTo(Sn.NONE);
    assertThat(tokens.get(1, 0)).isEqualTo(Sn.NONE);
  }

  @Test
  void shouldRefuseAnEmptyWindow() {
    assertThatThrownBy(() -> new CommittedTokens(0)).hasMessageContaining("window must be > 0");
  }
}
