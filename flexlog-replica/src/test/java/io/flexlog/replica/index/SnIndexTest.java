package io.flexlog.replica.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.flexlog.core.model.Sn;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SnIndexTest {

  @Test
  void appendsInOrderAndFindsEverySn() {
    SnIndex index = new SnIndex();
    for (int i = 1; i <= 10_000; i++) {
      assertThat(index.add(Sn.of(1, i), 1_000L * i)).isTrue();
    }
    assertThat(index.size()).isEqualTo(10_000);
    assertThat(index.firstSn()).isEqualTo(Sn.of(1, 1));
    assertThat(index.lastSn()).isEqualTo(Sn.of(1, 10_000));
    for (int i = 1; i <= 10_000; i++) {
      assertThat(index.address(Sn.of(1, i))).isEqualTo(1_000L * i);
      assertThat(index.snAt(i - 1)).isEqualTo(Sn.of(1, i));
      assertThat(index.addressAt(i - 1)).isEqualTo(1_000L * i);
    }
    assertThat(index.address(Sn.of(1, 10_001))).isEqualTo(SnIndex.NOT_FOUND);
    assertThat(index.add(Sn.of(1, 5), 7)).isFalse();
    assertThat(index.address(Sn.of(1, 5))).isEqualTo(5_000L);
  }

  @Test
  void takesEightBytesPerEntry() {
    SnIndex index = new SnIndex();
    int n = 100 * SnIndex.PAGE_ENTRIES;
    for (int i = 1; i <= n; i++) {
      index.add(Sn.of(1, i), 1_040L * i);
    }
    // 16 bytes per entry before: two long arrays, and a copy at twice the size when they grew
    assertThat(index.pageBytes()).isEqualTo(8L * n);
  }

  @Test
  void anEpochChangeAndAnAddressJumpStartNewPages() {
    SnIndex index = new SnIndex();
    index.add(Sn.of(1, 1), 10);
    index.add(Sn.of(1, 2), 20);
    index.add(Sn.of(7, 0), 30);
    index.add(Sn.of(7, 1), 30 + (5L << 32));
    index.add(Sn.of(7, 2), 40 + (5L << 32));
    assertThat(index.address(Sn.of(1, 2))).isEqualTo(20);
    assertThat(index.address(Sn.of(7, 0))).isEqualTo(30);
    assertThat(index.address(Sn.of(7, 1))).isEqualTo(30 + (5L << 32));
    assertThat(index.ceilingPosition(Sn.of(3, 0))).isEqualTo(2);
    assertThat(index.snAt(4)).isEqualTo(Sn.of(7, 2));
    // a late commit of an SN of the old epoch, below the new epoch's page
    assertThat(index.add(Sn.of(1, 3), 25)).isTrue();
    assertThat(index.snAt(2)).isEqualTo(Sn.of(1, 3));
    assertThat(index.addressAt(2)).isEqualTo(25);
    assertThat(index.snAt(3)).isEqualTo(Sn.of(7, 0));
  }

  @Test
  void discardDropsOnlyWholePagesOfTrimmedEntries() {
    SnIndex index = new SnIndex(4);
    for (int i = 1; i <= 10; i++) {
      index.add(i, i * 10L);
    }
    assertThat(index.discardThrough(6)).isEqualTo(4); // page [1..4] only; [5..8] holds 7 and 8
    assertThat(index.size()).isEqualTo(6);
    assertThat(index.firstSn()).isEqualTo(5);
    assertThat(index.snAt(0)).isEqualTo(5);
    assertThat(index.ceilingPosition(7)).isEqualTo(2);
    assertThat(index.discardThrough(100)).isEqualTo(6);
    assertThat(index.size()).isZero();
    assertThat(index.address(5)).isEqualTo(SnIndex.NOT_FOUND);
    assertThat(index.ceilingPosition(5)).isZero();
    index.add(11, 110);
    assertThat(index.snAt(0)).isEqualTo(11);
  }

  @Test
  void positionsOutsideTheIndexAreRefused() {
    SnIndex index = new SnIndex();
    index.add(1, 1);
    assertThatThrownBy(() -> index.snAt(1)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> index.addressAt(-1)).isInstanceOf(IndexOutOfBoundsException.class);
  }

  /**
   * Random appends, late commits (a few SNs back, sometimes across an epoch), address jumps and
   * discards, with every answer of the index checked against a sorted map after each step.
   */
  @ParameterizedTest
  @ValueSource(ints = {2, 3, 4, 8, 64, SnIndex.PAGE_ENTRIES})
  void matchesASortedMapAfterEveryStep(int pageEntries) {
    for (long seed = 1; seed <= 12; seed++) {
      Random random = new Random(seed * 31 + pageEntries);
      SnIndex index = new SnIndex(pageEntries);
      TreeMap<Long, Long> model = new TreeMap<>();
      List<Long> late = new ArrayList<>();
      int epoch = 1;
      long counter = 0;
      long address = 0;
      long discarded = 0;
      for (int step = 0; step < 1_500; step++) {
        int op = random.nextInt(100);
        if (op < 2) {
          epoch++;
          counter = 0;
        } else if (op < 4) {
          address += (1L << 31) + random.nextInt(1000);
        } else if (op < 6 && !model.isEmpty()) {
          long through = model.firstKey() + random.nextInt(3 * pageEntries + 1);
          int dropped = index.discardThrough(through);
          // whole pages only: what is dropped is a prefix of entries at or below `through`
          for (int i = 0; i < dropped; i++) {
            assertThat(model.pollFirstEntry().getKey()).isLessThanOrEqualTo(through);
          }
          discarded = Math.max(discarded, through);
          late.removeIf(sn -> sn <= through);
        } else if (op < 20 && !late.isEmpty()) {
          long sn = late.remove(random.nextInt(late.size()));
          address += 1 + random.nextInt(2000);
          assertThat(index.add(sn, address)).isEqualTo(model.put(sn, address) == null);
        } else {
          counter += 1;
          long sn = Sn.of(epoch, counter);
          if (random.nextInt(10) == 0) {
            late.add(sn); // its record comes later
            continue;
          }
          address += 1 + random.nextInt(2000);
          assertThat(index.add(sn, address)).isEqualTo(model.put(sn, address) == null);
        }
        if (!model.isEmpty() && random.nextInt(20) == 0) {
          Long again = model.ceilingKey(model.firstKey() + random.nextInt(50));
          assertThat(index.add(again == null ? model.lastKey() : again, 1)).isFalse();
        }
        check(index, model, random, discarded);
      }
    }
  }

  private static void check(SnIndex index, TreeMap<Long, Long> model, Random random, long below) {
    assertThat(index.size()).isEqualTo(model.size());
    assertThat(index.firstSn()).isEqualTo(model.isEmpty() ? 0 : model.firstKey());
    assertThat(index.lastSn()).isEqualTo(model.isEmpty() ? 0 : model.lastKey());
    long[] keys = new long[model.size()];
    int position = 0;
    for (Map.Entry<Long, Long> e : model.entrySet()) {
      keys[position] = e.getKey();
      if (index.snAt(position) != e.getKey() || index.addressAt(position) != e.getValue()) {
        fail(
            "position "
                + position
                + ": "
                + index.snAt(position)
                + " at "
                + index.addressAt(position)
                + ", expected "
                + e.getKey()
                + " at "
                + e.getValue());
      }
      position++;
    }
    for (int probe = 0; probe < 20 && !model.isEmpty(); probe++) {
      long sn = model.firstKey() - 2 + random.nextInt((int) Math.min(5_000, model.size() + 4));
      if (random.nextBoolean()) {
        sn = model.lastKey() - random.nextInt(8) + 4;
      }
      Long found = model.get(sn);
      assertThat(index.address(sn)).isEqualTo(found == null ? SnIndex.NOT_FOUND : found);
      int at = Arrays.binarySearch(keys, sn);
      assertThat(index.ceilingPosition(sn)).isEqualTo(at >= 0 ? at : -at - 1);
    }
  }
}
