package io.flexlog.core.util;

/**
 * An open-addressing hash map from 128-bit tokens (two {@code long}s) to {@code long} values, with
 * no boxing and no allocation except when it grows.
 *
 * <p>With a {@code retainLimit}, it remembers at most that many keys: inserting beyond the limit
 * forgets the oldest insertion (a sliding deduplication window, like Kafka's idempotent producer
 * state). Without one it grows without bound.
 *
 * <p>Not thread-safe: one owner thread.
 */
public final class TokenLongMap {
  /** Returned by {@link #get} for a key that is not present. */
  public final long missingValue;

  private final int retainLimit;

  /**
   * Slot {@code i} is {@code table[3i]} (key high), {@code table[3i + 1]} (key low) and {@code
   * table[3i + 2]} (value, {@link #missingValue} when the slot is empty): one slot's words and its
   * probe neighbours share cache lines, so a lookup in a large map costs one or two cache misses,
   * not one per array.
   */
  private long[] table;

  private int mask;
  private int size;

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
    allocate(capacity);
    if (retainLimit > 0) {
      orderHi = new long[retainLimit];
      orderLo = new long[retainLimit];
    }
  }

  private void allocate(int capacity) {
    table = new long[capacity * 3];
    for (int i = 2; i < table.length; i += 3) {
      table[i] = missingValue;
    }
    mask = capacity - 1;
  }

  public int size() {
    return size;
  }

  public boolean isEmpty() {
    return size == 0;
  }

  private static int hash(long hi, long lo) {
    long h = hi * 0x9E3779B97F4A7C15L ^ lo * 0xC2B2AE3D27D4EB4FL;
    h ^= h >>> 29;
    return (int) (h ^ (h >>> 32));
  }

  // The index into table of the key's slot, or of the empty slot where it would go.
  private int slot(long hi, long lo) {
    long[] t = table;
    int i = hash(hi, lo) & mask;
    while (true) {
      int at = i * 3;
      if (t[at + 2] == missingValue || (t[at] == hi && t[at + 1] == lo)) {
        return at;
      }
      i = (i + 1) & mask;
    }
  }

  public long get(long hi, long lo) {
    return table[slot(hi, lo) + 2];
  }

  public boolean containsKey(long hi, long lo) {
    return table[slot(hi, lo) + 2] != missingValue;
  }

  /**
   * Associates the value with the key; returns the previous value or {@link #missingValue}.
   *
   * @throws IllegalArgumentException when {@code value} is {@link #missingValue}, which marks
   *     absent keys
   */
  public long put(long hi, long lo, long value) {
    if (value == missingValue) {
      throw new IllegalArgumentException(
          "cannot store the missing value " + missingValue + " (it marks absent keys)");
    }
    int at = slot(hi, lo);
    long previous = table[at + 2];
    if (previous != missingValue) {
      table[at + 2] = value;
      return previous;
    }
    if (retainLimit > 0 && orderCount == retainLimit) {
      int oldest = orderHead;
      orderHead = (orderHead + 1) % retainLimit;
      orderCount--;
      remove(orderHi[oldest], orderLo[oldest]);
      at = slot(hi, lo);
    }
    table[at] = hi;
    table[at + 1] = lo;
    table[at + 2] = value;
    size++;
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
    long[] t = table;
    int at = slot(hi, lo);
    long previous = t[at + 2];
    if (previous == missingValue) {
      return missingValue;
    }
    t[at + 2] = missingValue;
    size--;
    // Backward-shift deletion keeps probe sequences intact without tombstones.
    int gap = at / 3;
    int j = (gap + 1) & mask;
    while (t[j * 3 + 2] != missingValue) {
      int jt = j * 3;
      int home = hash(t[jt], t[jt + 1]) & mask;
      if (((j - home) & mask) >= ((j - gap) & mask)) {
        int gt = gap * 3;
        t[gt] = t[jt];
        t[gt + 1] = t[jt + 1];
        t[gt + 2] = t[jt + 2];
        t[jt + 2] = missingValue;
        gap = j;
      }
      j = (j + 1) & mask;
    }
    return previous;
  }

  public void clear() {
    for (int i = 2; i < table.length; i += 3) {
      table[i] = missingValue;
    }
    size = 0;
    orderHead = 0;
    orderCount = 0;
  }

  /** Visits every entry; the visitor must not modify the map. */
  public void forEach(Visitor visitor) {
    long[] t = table;
    for (int at = 0; at < t.length; at += 3) {
      if (t[at + 2] != missingValue) {
        visitor.accept(t[at], t[at + 1], t[at + 2]);
      }
    }
  }

  /** Receives entries from {@link #forEach}. */
  @FunctionalInterface
  public interface Visitor {
    void accept(long hi, long lo, long value);
  }

  private void grow() {
    long[] old = table;
    allocate((mask + 1) * 2);
    for (int at = 0; at < old.length; at += 3) {
      if (old[at + 2] != missingValue) {
        int s = slot(old[at], old[at + 1]);
        table[s] = old[at];
        table[s + 1] = old[at + 1];
        table[s + 2] = old[at + 2];
      }
    }
  }
}
