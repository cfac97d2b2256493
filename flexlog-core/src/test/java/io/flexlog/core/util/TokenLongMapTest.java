package io.flexlog.core.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class TokenLongMapTest {
  private record Key(long hi, long lo) {}

  @Test
  void shouldBehaveLikeAHashMapUnderRandomOperations() {
    TokenLongMap map = new TokenLongMap(4, -1L);
    Map<Key, Long> model = new HashMap<>();
    Random random = new Random(42);
    for (int step = 0; step < 200_000; step++) {
      Key key = new Key(random.nextInt(64), random.nextInt(64));
      switch (random.nextInt(3)) {
        case 0 -> {
          long value = random.nextLong() & Long.MAX_VALUE;
          Long previous = model.put(key, value);
          assertThat(map.put(key.hi, key.lo, value)).isEqualTo(previous == null ? -1L : previous);
        }
        case 1 -> {
          Long previous = model.remove(key);
          assertThat(map.remove(key.hi, key.lo)).isEqualTo(previous == null ? -1L : previous);
        }
        default -> {
          Long value = model.get(key);
          assertThat(map.get(key.hi, key.lo)).isEqualTo(value == null ? -1L : value);
        }
      }
      assertThat(map.size()).isEqualTo(model.size());
    }
  }

  /**
   * The replica's pattern: sessions append consecutive sequences, which the map keeps in adjacent
   * slots, and remove them mostly in order, some out of order; the map agrees with a HashMap at
   * every step and, emptied, finds nothing in its grown table.
   */
  @Test
  void shouldBehaveLikeAHashMapForConsecutiveSequencesOfManySessions() {
    TokenLongMap map = new TokenLongMap(16, -1L);
    Map<Key, Long> model = new HashMap<>();
    Random random = new Random(7);
    long[] sessions = random.longs(40).toArray();
    long[] next = new long[sessions.length];
    long[] oldest = new long[sessions.length];
    for (int step = 0; step < 300_000; step++) {
      int s = random.nextInt(sessions.length);
      Key key;
      if (random.nextInt(5) < 3) {
        key = new Key(sessions[s], next[s]++);
        long value = step;
        assertThat(map.put(key.hi, key.lo, value)).isEqualTo(-1L);
        model.put(key, value);
      } else if (oldest[s] < next[s]) {
        long sequence = random.nextInt(8) == 0 ? oldest[s] + random.nextInt(16) : oldest[s]++;
        key = new Key(sessions[s], sequence);
        Long previous = model.remove(key);
        assertThat(map.remove(key.hi, key.lo)).isEqualTo(previous == null ? -1L : previous);
      } else {
        key = new Key(sessions[s], next[s] + random.nextInt(4));
      }
      Long value = model.get(key);
      assertThat(map.get(key.hi, key.lo)).isEqualTo(value == null ? -1L : value);
      assertThat(map.size()).isEqualTo(model.size());
    }
    for (Key key : model.keySet().toArray(new Key[0])) {
      assertThat(map.remove(key.hi, key.lo)).isEqualTo(model.remove(key));
    }
    assertThat(map.isEmpty()).isTrue();
    assertThat(map.get(sessions[0], 0)).isEqualTo(-1L);
    assertThat(map.containsKey(sessions[0], next[0] - 1)).isFalse();
  }

  @Test
  void shouldForgetOldestInsertionsBeyondRetainLimit() {
    TokenLongMap map = new TokenLongMap(4, -1L, 100);
    for (int i = 0; i < 1000; i++) {
      map.put(7, i, i);
    }
    assertThat(map.size()).isEqualTo(100);
    assertThat(map.get(7, 899)).isEqualTo(-1L);
    for (int i = 900; i < 1000; i++) {
      assertThat(map.get(7, i)).isEqualTo(i);
    }
  }

  @Test
  void shouldKeepZeroKeysAndVisitEveryEntryOnce() {
    TokenLongMap map = new TokenLongMap(2, Long.MIN_VALUE);
    map.put(0, 0, 0);
    map.put(0, 1, 10);
    map.put(-1, 0, 20);
    for (int i = 0; i < 1000; i++) {
      map.put(5, i, 100 + i); // grows several times
    }
    assertThat(map.get(0, 0)).isZero();
    assertThat(map.get(0, 1)).isEqualTo(10);
    assertThat(map.get(-1, 0)).isEqualTo(20);
    Map<Key, Long> seen = new HashMap<>();
    map.forEach((hi, lo, value) -> assertThat(seen.put(new Key(hi, lo), value)).isNull());
    assertThat(seen).hasSize(1003).containsEntry(new Key(5, 999), 1099L);
  }

  @Test
  void shouldGiveBackTheMemoryOfABurstOnceASmallLoadEmptiesItAndStayCorrect() {
    TokenLongMap map = new TokenLongMap(64, -1);
    int initial = map.capacity();
    for (long i = 0; i < 100_000; i++) {
      map.put(7, i, i * 3);
    }
    int grown = map.capacity();
    assertThat(grown).isGreaterThanOrEqualTo(200_000);
    for (long i = 0; i < 100_000; i++) {
      assertThat(map.remove(7, i)).isEqualTo(i * 3);
    }
    assertThat(map.capacity()).as("emptied after a peak of its size: kept").isEqualTo(grown);

    // the same load again: no reallocation
    for (long i = 0; i < 100_000; i++) {
      map.put(8, i, i);
    }
    for (long i = 0; i < 100_000; i++) {
      map.remove(8, i);
    }
    assertThat(map.capacity()).isEqualTo(grown);

    // a small load after the burst: it shrinks to fit that load, and stays correct
    for (long i = 0; i < 100; i++) {
      map.put(9, i, i + 1);
    }
    for (long i = 0; i < 100; i++) {
      assertThat(map.get(9, i)).isEqualTo(i + 1);
      map.remove(9, i);
    }
    assertThat(map.capacity()).isEqualTo(Math.max(initial, 512));
    map.put(1, 2, 3);
    assertThat(map.get(1, 2)).isEqualTo(3);
    assertThat(map.get(9, 5)).isEqualTo(-1);
    map.remove(1, 2);
    assertThat(map.capacity()).isEqualTo(initial);
  }
}
