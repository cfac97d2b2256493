package io.flexlog.core.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TokenWindowTest {
  private static final long NONE = 0L;

  @Test
  void shouldAnswerEveryTokenOfTheWindowAndForgetOlderOnes() {
    TokenWindow tokens = new TokenWindow(1000, NONE);
    for (long sequence = 1; sequence <= 5000; sequence++) {
      tokens.put(7, sequence, 100 + sequence);
    }
    for (long sequence = 4001; sequence <= 5000; sequence++) {
      assertThat(tokens.get(7, sequence)).as("sequence %d", sequence).isEqualTo(100 + sequence);
    }
    // The ring is a power of two long and still holds 3977-4000: they left the window all the same.
    assertThat(tokens.get(7, 4000)).isEqualTo(NONE);
    assertThat(tokens.get(7, 1)).isEqualTo(NONE);
    assertThat(tokens.get(7, 5001)).isEqualTo(NONE);
    assertThat(tokens.get(8, 5000)).isEqualTo(NONE);
    assertThat(tokens.slots()).isLessThanOrEqualTo(1024);
  }

  @Test
  void shouldVisitExactlyTheTokensItWouldAnswer() {
    TokenWindow tokens = new TokenWindow(100, NONE);
    for (long sequence = 1; sequence <= 300; sequence++) {
      tokens.put(7, sequence, 1000 + sequence);
    }
    tokens.put(9, 5, 42);
    tokens.put(9, 6, 43);
    tokens.remove(9, 6);
    Map<String, Long> visited = new HashMap<>();
    tokens.forEach((session, sequence, value) -> visited.put(session + ":" + sequence, value));

    Map<String, Long> expected = new HashMap<>();
    for (long sequence = 201; sequence <= 300; sequence++) {
      expected.put("7:" + sequence, 1000 + sequence);
    }
    expected.put("9:5", 42L);
    assertThat(visited).isEqualTo(expected);
  }

  @Test
  void shouldRememberSequencesThatArriveOutOfOrderAndStrided() {
    // A producer that spreads one session over 8 shards: this replica sees every 8th sequence,
    // retries and batches come back late and in any order.
    TokenWindow tokens = new TokenWindow(1 << 12, NONE);
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
    TokenWindow tokens = new TokenWindow(64, NONE);
    tokens.put(1, 1, 11);
    for (long session = 2; session <= 100; session++) {
      tokens.put(session, 1, 10 * session + 1);
      tokens.put(1, session, 10 + session); // session 1 stays the most recently used
    }
    assertThat(tokens.slots()).isLessThanOrEqualTo(128);
    assertThat(tokens.sessions()).isLessThan(100);
    assertThat(tokens.get(1, 100)).isEqualTo(110);
    assertThat(tokens.get(100, 1)).isEqualTo(1001);
    assertThat(tokens.get(2, 1)).as("the least recently used session is forgotten").isEqualTo(NONE);
  }

  @Test
  void shouldKeepOneBusySessionFromPushingOutAnotherWithinTheBudget() {
    TokenWindow tokens = new TokenWindow(1 << 10, NONE);
    tokens.put(1, 1, 5);
    for (long sequence = 1; sequence <= 100_000; sequence++) {
      tokens.put(2, sequence, sequence + 10);
    }
    assertThat(tokens.get(1, 1)).isEqualTo(5);
    assertThat(tokens.get(2, 100_000)).isEqualTo(100_010);
  }

  @Test
  void shouldIgnoreSequencesOlderThanTheWindowAndSurviveExtremeValues() {
    TokenWindow tokens = new TokenWindow(16, NONE);
    tokens.put(1, Long.MAX_VALUE, 9);
    tokens.put(1, Long.MIN_VALUE, 8);
    tokens.put(1, -5, 7);
    assertThat(tokens.get(1, Long.MAX_VALUE)).isEqualTo(9);
    assertThat(tokens.get(1, Long.MIN_VALUE)).isEqualTo(NONE);
    assertThat(tokens.get(1, -5)).isEqualTo(NONE);
    assertThat(tokens.get(1, 0)).isEqualTo(NONE);
  }

  @Test
  void shouldRemoveATokenAndKeepItsNeighbours() {
    TokenWindow tokens = new TokenWindow(64, -1L);
    assertThat(tokens.get(1, 5)).isEqualTo(-1L);
    for (long sequence = 1; sequence <= 10; sequence++) {
      tokens.put(1, sequence, sequence * 10);
    }
    assertThat(tokens.get(1, 0)).as("an empty slot with sequence 0").isEqualTo(-1L);
    assertThat(tokens.remove(1, 5)).isEqualTo(50);
    assertThat(tokens.remove(1, 5)).isEqualTo(-1L);
    assertThat(tokens.remove(2, 5)).isEqualTo(-1L);
    assertThat(tokens.get(1, 5)).isEqualTo(-1L);
    assertThat(tokens.get(1, 4)).isEqualTo(40);
    assertThat(tokens.get(1, 6)).isEqualTo(60);
    tokens.put(1, 5, 0L); // 0 is a value like any other when it is not the missing one
    assertThat(tokens.get(1, 5)).isZero();
    assertThatThrownBy(() -> tokens.put(1, 11, -1L)).hasMessageContaining("missing value");
  }

  @Test
  void shouldRefuseAnEmptyWindow() {
    assertThatThrownBy(() -> new TokenWindow(0, NONE)).hasMessageContaining("window must be > 0");
  }

  @Test
  void shouldCopyEveryTokenAndShareNothingWithTheCopy() {
    TokenWindow tokens = new TokenWindow(64, NONE);
    SplittableRandom random = new SplittableRandom(7);
    Map<String, Long> expected = new HashMap<>();
    for (int i = 0; i < 2000; i++) {
      long session = random.nextInt(40);
      long sequence = random.nextInt(500);
      tokens.put(session, sequence, 1 + i);
    }
    tokens.forEach((session, sequence, value) -> expected.put(session + ":" + sequence, value));
    TokenWindow copy = tokens.copy();

    Map<String, Long> copied = new HashMap<>();
    copy.forEach((session, sequence, value) -> copied.put(session + ":" + sequence, value));
    assertThat(copied).isEqualTo(expected);
    assertThat(copy.slots()).isEqualTo(tokens.slots());
    assertThat(copy.sessions()).isEqualTo(tokens.sessions());

    tokens.put(1000, 1, 5); // may push the least recent session out of the original only
    expected.keySet().stream()
        .map(token -> token.split(":"))
        .forEach(t -> tokens.remove(Long.parseLong(t[0]), Long.parseLong(t[1])));
    assertThat(copy.get(1000, 1)).isEqualTo(NONE);
    expected.forEach(
        (token, value) -> {
          String[] parts = token.split(":");
          assertThat(copy.get(Long.parseLong(parts[0]), Long.parseLong(parts[1])))
              .as(token)
              .isEqualTo(value);
        });
    String first = expected.keySet().iterator().next();
    String[] parts = first.split(":");
    TokenWindow again = copy.copy();
    copy.put(Long.parseLong(parts[0]), Long.parseLong(parts[1]), 99_999);
    assertThat(again.get(Long.parseLong(parts[0]), Long.parseLong(parts[1])))
        .isEqualTo(expected.get(first));
  }
}
