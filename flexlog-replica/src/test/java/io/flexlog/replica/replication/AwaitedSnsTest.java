package io.flexlog.replica.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class AwaitedSnsTest {

  @Test
  void emptySetHasNoFirst() {
    AwaitedSns set = new AwaitedSns();
    assertTrue(set.isEmpty());
    assertEquals(0, set.first());
    set.remove(5);
    assertFalse(set.contains(5));
  }

  @Test
  void keepsOrderWhenSnsLeaveFromTheBottomAndJoinAtTheTop() {
    AwaitedSns set = new AwaitedSns();
    for (long sn = 1; sn <= 100_000; sn++) {
      set.add(sn);
      if (sn > 40_000) {
        set.remove(sn - 40_000);
      }
      assertEquals(Math.max(1, sn - 39_999), set.first());
    }
    assertEquals(40_000, set.size());
  }

  /** Every step of a seeded random sequence is checked against a TreeSet. */
  @Test
  void matchesASortedSetOverRandomOperations() {
    for (long seed = 1; seed <= 40; seed++) {
      Random random = new Random(seed);
      AwaitedSns set = new AwaitedSns();
      TreeSet<Long> model = new TreeSet<>();
      List<Long> present = new ArrayList<>();
      long top = 1_000;
      for (int step = 0; step < 5_000; step++) {
        int op = random.nextInt(10);
        long sn;
        if (op < 4) {
          // mostly at the top, sometimes below it
          sn = random.nextInt(4) == 0 ? 1 + random.nextInt((int) top) : ++top;
          set.add(sn, sinceOf(sn));
          if (model.add(sn)) {
            present.add(sn);
          }
        } else if (op < 8 && !present.isEmpty()) {
          // mostly the smallest, sometimes any present, sometimes an absent one
          int pick = random.nextInt(4);
          sn = pick == 0 ? present.get(random.nextInt(present.size())) : model.first();
          if (pick == 1) {
            sn = top + 1 + random.nextInt(100);
          }
          set.remove(sn);
          if (model.remove(sn)) {
            present.remove(sn);
          }
        } else {
          sn = 1 + random.nextInt((int) top + 10);
          assertEquals(model.contains(sn), set.contains(sn), "seed " + seed + " step " + step);
        }
        assertMatches(model, set, random, "seed " + seed + " step " + step);
      }
      for (long sn : model) {
        assertTrue(set.contains(sn), "seed " + seed + " missing " + sn);
      }
    }
  }

  /** removeThrough (a trim) against a TreeSet, checked after every step of seeded sequences. */
  @Test
  void removesEverySnAtOrBelowATrimPoint() {
    for (long seed = 1; seed <= 20; seed++) {
      Random random = new Random(seed);
      AwaitedSns set = new AwaitedSns();
      TreeSet<Long> model = new TreeSet<>();
      long top = 100;
      for (int step = 0; step < 3_000; step++) {
        if (random.nextInt(8) > 0) {
          long sn = random.nextInt(3) == 0 ? 1 + random.nextInt((int) top) : ++top;
          set.add(sn, sinceOf(sn));
          model.add(sn);
        } else {
          long through = random.nextInt((int) top + 5);
          var below = model.headSet(through, true);
          int expected = below.size();
          below.clear();
          assertEquals(expected, set.removeThrough(through), "seed " + seed + " step " + step);
        }
        assertMatches(model, set, random, "seed " + seed + " step " + step);
      }
      for (long sn : model) {
        assertTrue(set.contains(sn), "seed " + seed + " missing " + sn);
      }
    }
  }

  @Test
  void givesBackTheMemoryOfABurstOfLagOnceASmallLagEmptiesIt() {
    AwaitedSns set = new AwaitedSns();
    for (long sn = 1; sn <= 500_000; sn++) {
      set.add(sn);
    }
    int grown = set.capacity();
    for (long sn = 1; sn <= 500_000; sn++) {
      set.remove(sn);
    }
    assertEquals(grown, set.capacity(), "emptied after a peak of its size: kept");
    set.add(7);
    set.add(3);
    assertEquals(3, set.first());
    set.remove(3);
    set.remove(7);
    assertEquals(16, set.capacity());
    for (long sn = 10; sn < 1000; sn++) {
      set.add(sn);
    }
    assertEquals(10, set.first());
    assertEquals(990, set.size());
    assertTrue(set.contains(999));
  }

  /** The time the randomized test gives an SN: not monotonic in the SN, so runs end early. */
  private static long sinceOf(long sn) {
    return (sn * 7919) % 5;
  }

  /** Size, smallest SN, its time, and the run of overdue SNs for a random deadline. */
  private static void assertMatches(
      TreeSet<Long> model, AwaitedSns set, Random random, String where) {
    assertEquals(model.size(), set.size(), where);
    assertEquals(model.isEmpty() ? 0L : model.first(), set.first(), where);
    assertEquals(
        model.isEmpty() ? 0L : sinceOf(model.first()),
        set.firstSince(),
        "each SN keeps its time: " + where);
    if (!model.isEmpty()) {
      // the run from the smallest SN of those awaited since an even time or earlier
      long deadline = sinceOf(model.first()) + 2 * random.nextInt(3);
      long through = 0;
      for (long awaited : model) {
        if (sinceOf(awaited) > deadline) {
          break;
        }
        through = awaited;
      }
      assertEquals(through, set.overdueThrough(deadline, Integer.MAX_VALUE), where);
    }
  }
}
