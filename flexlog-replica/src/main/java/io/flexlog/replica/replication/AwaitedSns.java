package io.flexlog.replica.replication;

import java.util.Arrays;

/**
 * The SNs of one shard and color that the sequencer assigned before their record arrived here: a
 * sorted set of longs held in {@code values[head, tail)}.
 *
 * <p>A replica that falls behind the others gets its ORDER_RESPONSEs first and its records later,
 * almost always in SN order: SNs join at the top and leave at the bottom. Both ends are therefore
 * O(1), and an insertion or removal in the middle moves only the shorter side. A plain sorted array
 * that shifts its tail on every removal costs O(n) per arriving record there, which makes a replica
 * that is a few tens of thousands of records behind spend its time moving memory and fall further
 * behind.
 */
final class AwaitedSns {
  /**
   * An array longer than this shrinks when the set empties after holding at most a sixteenth of it
   * since it was last empty.
   */
  static final int SHRINK_ABOVE = 1024;

  private long[] values = new long[16];

  /** Per SN (same index as {@link #values}): when it began to be awaited. */
  private long[] since = new long[16];

  private int head;
  private int tail;
  private int peakSize;

  /** Adds {@code sn}; nothing happens if it is already present. */
  void add(long sn) {
    add(sn, 0);
  }

  /** Adds {@code sn}, awaited since {@code sinceNs}; nothing happens if it is already present. */
  void add(long sn, long sinceNs) {
    int at = Arrays.binarySearch(values, head, tail, sn);
    if (at >= 0) {
      return;
    }
    if (tail == values.length) {
      makeRoom();
      at = Arrays.binarySearch(values, head, tail, sn);
    }
    int insert = -at - 1;
    if (head > 0 && insert - head < tail - insert) {
      System.arraycopy(values, head, values, head - 1, insert - head);
      System.arraycopy(since, head, since, head - 1, insert - head);
      head--;
      values[insert - 1] = sn;
      since[insert - 1] = sinceNs;
    } else {
      System.arraycopy(values, insert, values, insert + 1, tail - insert);
      System.arraycopy(since, insert, since, insert + 1, tail - insert);
      values[insert] = sn;
      since[insert] = sinceNs;
      tail++;
    }
    peakSize = Math.max(peakSize, tail - head);
  }

  /** Removes {@code sn} if present. */
  void remove(long sn) {
    int at = Arrays.binarySearch(values, head, tail, sn);
    if (at < 0) {
      return;
    }
    if (at - head < tail - at - 1) {
      System.arraycopy(values, head, values, head + 1, at - head);
      System.arraycopy(since, head, since, head + 1, at - head);
      head++;
    } else {
      System.arraycopy(values, at + 1, values, at, tail - at - 1);
      System.arraycopy(since, at + 1, since, at, tail - at - 1);
      tail--;
    }
    if (head == tail) {
      emptied();
    }
  }

  /** Removes every SN at or below {@code sn} (they were trimmed); returns how many. */
  int removeThrough(long sn) {
    int at = Arrays.binarySearch(values, head, tail, sn);
    int end = at >= 0 ? at + 1 : -at - 1;
    int removed = end - head;
    head = end;
    if (removed > 0 && head == tail) {
      emptied();
    }
    return removed;
  }

  private void emptied() {
    head = 0;
    tail = 0;
    int peak = peakSize;
    peakSize = 0;
    if (values.length > SHRINK_ABOVE && peak <= values.length / 16) {
      // give back what an earlier burst of lag grew; a lag that keeps its size keeps its array
      values = new long[Math.max(16, Integer.highestOneBit(Math.max(1, peak)) << 3)];
      since = new long[values.length];
    }
  }

  boolean contains(long sn) {
    return Arrays.binarySearch(values, head, tail, sn) >= 0;
  }

  /** The smallest SN, or 0 if the set is empty (0 is never an SN). */
  long first() {
    return head < tail ? values[head] : 0;
  }

  /** Since when the smallest SN is awaited (0 if the set is empty). */
  long firstSince() {
    return head < tail ? since[head] : 0;
  }

  /**
   * The largest SN of the run that starts at the smallest one and holds only SNs awaited since
   * {@code deadlineNs} or earlier, looking at no more than {@code maxScan} SNs; 0 if the smallest
   * is not that old.
   */
  long overdueThrough(long deadlineNs, int maxScan) {
    long through = 0;
    for (int i = head; i < tail && i - head < maxScan && since[i] <= deadlineNs; i++) {
      through = values[i];
    }
    return through;
  }

  boolean isEmpty() {
    return head == tail;
  }

  int size() {
    return tail - head;
  }

  /** The length of the backing array (for tests). */
  int capacity() {
    return values.length;
  }

  /** Moves the values to the start of the array, growing it first if it is at least half full. */
  private void makeRoom() {
    int size = tail - head;
    boolean grow = size * 2 >= values.length;
    long[] target = grow ? new long[values.length * 2] : values;
    long[] targetSince = grow ? new long[values.length * 2] : since;
    System.arraycopy(values, head, target, 0, size);
    System.arraycopy(since, head, targetSince, 0, size);
    values = target;
    since = targetSince;
    head = 0;
    tail = size;
  }
}
