package io.flexlog.core.util;

/**
 * An open-addressing hash map from 128-bit tokens (two {@code long}s) to {@code long} values, with
 * no boxing and no allocation except when it grows.
 *
 * <p>With a {@code retainLimit}, it remembers at most that many keys: inserting beyond the limit
 * forgets the oldest insertion (a sliding deduplication window, like Kafka's idempotent producer
 * state). Without one it grows without bound.
 *
 * <p>A token's slot keeps a session's consecutive sequences together: sixteen consecutive sequences
 * (an aligned block of the low part) hash to sixteen adjacent slots, and the blocks are spread over
 * the table. A replica looks up and removes the records of a batch in sequence order, so it touches
 * one cache line per several records instead of one or more per record
 * (docs/architecture.md#pending-appends).
 *
 * <p>A map that grew for a burst gives the memory back: when it empties after holding at most a
 * sixteenth of its capacity since it was last empty, it shrinks to four times that peak (no smaller
 * than its initial capacity). So a burst (a replica far behind its peers collects hundreds of
 * thousands of early SNs) does not pin tens of megabytes for the life of the process, while a load
 * that keeps refilling it to a similar size never reallocates.
 *
 * <p>Not thread-safe: one owner thread.
 */
public final class TokenLongMap {
  /** Returned by {@link #get} for a key that is not present. */
  public final long missingValue;

  private final int retainLimit;
  private final int initialTableCapacity;
  private long[] keysHi;
  private long[] keysLo;
  private long[] values;
  private boolean[] used;
  private int mask;
  private int size;
  private int peakSize;

  // FIFO of insertions, for the retain limit.
  private long[] orderHi;
  private long[] orderLo;
  private int orderHead;
  private int orderCount;

  public TokenLongMap(int initialCapacity, long missingValue) {
    this(initialCapacity, missingValue, 0);
  }

  /**
   * @param retainLimit the most keys kept, or 0 for no limit
   */
  public TokenLongMap(int initialCapacity, long missingValue, int retainLimit) {
    if (retainLimit < 0) {
      throw new IllegalArgumentException("retainLimit < 0: " + retainLimit);
    }
    this.missingValue = missingValue;
    this.retainLimit = retainLimit;
    int capacity = Integer.highestOneBit(Math.max(16, initialCapacity * 2 - 1)) << 1;
    initialTableCapacity = capacity;
    allocate(capacity);
    if (retainLimit > 0) {
      orderHi = new long[retainLimit];
      orderLo = new long[retainLimit];
    }
  }

  private void allocate(int capacity) {
    keysHi = new long[capacity];
    keysLo = new long[capacity];
    values = new long[capacity];
    used = new boolean[capacity];
    mask = capacity - 1;
  }

  public int size() {
    return size;
  }

  public boolean isEmpty() {
    return size == 0;
  }

  /** The number of slots of the table (for tests and memory accounting). */
  public int capacity() {
    return mask + 1;
  }

  /** Sixteen consecutive {@code lo} of one {@code hi} land in sixteen adjacent slots. */
  private static int hash(long hi, long lo) {
    long h = hi * 0x9E3779B97F4A7C15L ^ (lo >>> 4) * 0xC2B2AE3D27D4EB4FL;
    h ^= h >>> 29;
    return ((int) (h ^ (h >>> 32)) << 4) | (int) (lo & 15);
  }

  private int slot(long hi, long lo) {
    int i = hash(hi, lo) & mask;
    while (used[i] && (keysHi[i] != hi || keysLo[i] != lo)) {
      i = (i + 1) & mask;
    }
    return i;
  }

  public long get(long hi, long lo) {
    if (size == 0) {
      return missingValue; // no probe into a table that may have grown large and gone cold
    }
    int i = slot(hi, lo);
    return used[i] ? values[i] : missingValue;
  }

  public boolean containsKey(long hi, long lo) {
    return size != 0 && used[slot(hi, lo)];
  }

  /** Associates the value with the key; returns the previous value or {@link #missingValue}. */
  public long put(long hi, long lo, long value) {
    int i = slot(hi, lo);
    if (used[i]) {
      long previous = values[i];
      values[i] = value;
      return previous;
    }
    if (retainLimit > 0 && orderCount == retainLimit) {
      int oldest = orderHead;
      orderHead = (orderHead + 1) % retainLimit;
      orderCount--;
      remove(orderHi[oldest], orderLo[oldest]);
      i = slot(hi, lo);
    }
    used[i] = true;
    keysHi[i] = hi;
    keysLo[i] = lo;
    values[i] = value;
    size++;
    if (size > peakSize) {
      peakSize = size;
    }
    if (retainLimit > 0) {
      int tail = (orderHead + orderCount) % retainLimit;
      orderHi[tail] = hi;
      orderLo[tail] = lo;
      orderCount++;
    }
    if (size * 2 > mask + 1) {
      grow();
    }
    return missingValue;
  }

  /** Removes the key; returns its value or {@link #missingValue}. */
  public long remove(long hi, long lo) {
    if (size == 0) {
      return missingValue;
    }
    int i = slot(hi, lo);
    if (!used[i]) {
      return missingValue;
    }
    long previous = values[i];
    used[i] = false;
    size--;
    if (size == 0) {
      int peak = peakSize;
      peakSize = 0;
      if (mask + 1 > initialTableCapacity && peak <= (mask + 1) / 16) {
        allocate(Math.max(initialTableCapacity, Integer.highestOneBit(Math.max(1, peak)) << 3));
        return previous;
      }
    }
    // Backward-shift deletion keeps probe sequences intact without tombstones.
    int gap = i;
    int j = (i + 1) & mask;
    while (used[j]) {
      int home = hash(keysHi[j], keysLo[j]) & mask;
      if (((j - home) & mask) >= ((j - gap) & mask)) {
        keysHi[gap] = keysHi[j];
        keysLo[gap] = keysLo[j];
        values[gap] = values[j];
        used[gap] = true;
        used[j] = false;
        gap = j;
      }
      j = (j + 1) & mask;
    }
    return previous;
  }

  public void clear() {
    java.util.Arrays.fill(used, false);
    peakSize = 0;
    size = 0;
    orderHead = 0;
    orderCount = 0;
  }

  /** Visits every entry; the visitor must not modify the map. */
  public void forEach(Visitor visitor) {
    for (int i = 0; i < used.length; i++) {
      if (used[i]) {
        visitor.accept(keysHi[i], keysLo[i], values[i]);
      }
    }
  }

  /** Receives entries from {@link #forEach}. */
  @FunctionalInterface
  public interface Visitor {
    void accept(long hi, long lo, long value);
  }

  private void grow() {
    long[] oldHi = keysHi;
    long[] oldLo = keysLo;
    long[] oldValues = values;
    boolean[] oldUsed = used;
    allocate(oldUsed.length * 2);
    for (int i = 0; i < oldUsed.length; i++) {
      if (oldUsed[i]) {
        int s = slot(oldHi[i], oldLo[i]);
        used[s] = true;
        keysHi[s] = oldHi[i];
        keysLo[s] = oldLo[i];
        values[s] = oldValues[i];
      }
    }
  }
}
