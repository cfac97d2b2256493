package io.flexlog.sequencer.ordering;

import java.util.Arrays;
import java.util.function.IntPredicate;

/**
 * The new tokens of one color collected during one event-loop turn, in arrival order and grouped by
 * shard slot (a role-local index of a shard in the color's subtree).
 *
 * <p>Primitive arrays only, reused across turns and grown by doubling, so a steady load allocates
 * nothing. Not thread-safe: owned by the node's event loop.
 */
final class ColorBatch {
  private long[] hi = new long[64];
  private long[] lo = new long[64];
  private long[] sn = new long[64];
  private int size;

  /** Per shard slot: indexes into the arrival arrays. */
  private int[][] slotEntries;

  private int[] slotCounts;

  /** Slots with at least one entry this turn, in first-arrival order. */
  private int[] activeSlots;

  private int activeCount;

  ColorBatch(int slotCount) {
    slotEntries = new int[slotCount][];
    for (int s = 0; s < slotCount; s++) {
      slotEntries[s] = new int[16];
    }
    slotCounts = new int[slotCount];
    activeSlots = new int[slotCount];
  }

  /** Makes room for slots {@code [0, slotCount)}; a newer topology can add shards. */
  void ensureSlots(int slotCount) {
    int old = slotCounts.length;
    if (slotCount <= old) {
      return;
    }
    slotEntries = Arrays.copyOf(slotEntries, slotCount);
    for (int s = old; s < slotCount; s++) {
      slotEntries[s] = new int[16];
    }
    slotCounts = Arrays.copyOf(slotCounts, slotCount);
    activeSlots = Arrays.copyOf(activeSlots, slotCount);
  }

  void add(int slot, long tokenHi, long tokenLo) {
    if (size == hi.length) {
      hi = Arrays.copyOf(hi, size * 2);
      lo = Arrays.copyOf(lo, size * 2);
      sn = Arrays.copyOf(sn, size * 2);
    }
    hi[size] = tokenHi;
    lo[size] = tokenLo;
    sn[size] = 0L;
    int count = slotCounts[slot];
    if (count == 0) {
      activeSlots[activeCount++] = slot;
    }
    if (count == slotEntries[slot].length) {
      slotEntries[slot] = Arrays.copyOf(slotEntries[slot], count * 2);
    }
    slotEntries[slot][count] = size;
    slotCounts[slot] = count + 1;
    size++;
  }

  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  long hi(int entry) {
    return hi[entry];
  }

  long lo(int entry) {
    return lo[entry];
  }

  long sn(int entry) {
    return sn[entry];
  }

  /** The SN of an entry, 0 until {@link #assign} gave it one. */
  void assign(int entry, long value) {
    sn[entry] = value;
  }

  int activeSlotCount() {
    return activeCount;
  }

  int activeSlot(int k) {
    return activeSlots[k];
  }

  int entryCount(int slot) {
    return slotCounts[slot];
  }

  /** The arrival index of the {@code j}-th entry of {@code slot}. */
  int entry(int slot, int j) {
    return slotEntries[slot][j];
  }

  /**
   * Adds every entry without an SN to {@code other}, in arrival order and in the same slot. Used
   * only when a leased epoch runs out (docs/architecture.md, "Sequencer failover"), so it may
   * allocate.
   */
  void copyUnassignedTo(ColorBatch other) {
    copyUnassignedTo(other, slot -> true);
  }

  /** {@link #copyUnassignedTo(ColorBatch)}, only the entries of slots {@code keep} accepts. */
  void copyUnassignedTo(ColorBatch other, IntPredicate keep) {
    int[] slotOf = new int[size];
    for (int k = 0; k < activeCount; k++) {
      int slot = activeSlots[k];
      for (int j = 0; j < slotCounts[slot]; j++) {
        slotOf[slotEntries[slot][j]] = slot;
      }
    }
    for (int i = 0; i < size; i++) {
      if (sn[i] == 0L && keep.test(slotOf[i])) {
        other.add(slotOf[i], hi[i], lo[i]);
      }
    }
  }

  void clear() {
    for (int k = 0; k < activeCount; k++) {
      slotCounts[activeSlots[k]] = 0;
    }
    activeCount = 0;
    size = 0;
  }
}
