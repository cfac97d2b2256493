package io.flexlog.replica.index;

import java.util.Arrays;

/**
 * The committed entries of one color on one shard replica: SNs in increasing order with the storage
 * address of each, in two growable primitive arrays, binary-searched.
 *
 * <p>SNs almost always arrive in increasing order (the sequencer assigns them in order and the
 * connection is FIFO), so an insert is an append; the rare late commit (the ORDER_RESPONSE came
 * before the record) is inserted in place by shifting the tail.
 *
 * <p>Not thread-safe: owned by the replica's event-loop thread.
 */
public final class SnIndex {
  /** Returned by {@link #address} when the SN is not in the index. */
  public static final long NOT_FOUND = -1L;

  private long[] sns;
  private long[] addresses;
  private int size;

  public SnIndex() {
    this(64);
  }

  public SnIndex(int initialCapacity) {
    sns = new long[Math.max(4, initialCapacity)];
    addresses = new long[sns.length];
  }

  public int size() {
    return size;
  }

  /** The largest SN in the index, or 0 when empty. */
  public long lastSn() {
    return size == 0 ? 0L : sns[size - 1];
  }

  /** The smallest SN in the index, or 0 when empty. */
  public long firstSn() {
    return size == 0 ? 0L : sns[0];
  }

  /**
   * Adds an entry.
   *
   * @return false if the SN is already present (the index is unchanged)
   */
  public boolean add(long sn, long address) {
    if (size == sns.length) {
      sns = Arrays.copyOf(sns, size * 2);
      addresses = Arrays.copyOf(addresses, size * 2);
    }
    if (size == 0 || sn > sns[size - 1]) {
      sns[size] = sn;
      addresses[size] = address;
      size++;
      return true;
    }
    int at = Arrays.binarySearch(sns, 0, size, sn);
    if (at >= 0) {
      return false;
    }
    int insert = -at - 1;
    System.arraycopy(sns, insert, sns, insert + 1, size - insert);
    System.arraycopy(addresses, insert, addresses, insert + 1, size - insert);
    sns[insert] = sn;
    addresses[insert] = address;
    size++;
    return true;
  }

  /** The address of the entry with this SN, or {@link #NOT_FOUND}. */
  public long address(long sn) {
    int at = Arrays.binarySearch(sns, 0, size, sn);
    return at >= 0 ? addresses[at] : NOT_FOUND;
  }

  /** Position of the first entry with an SN {@code >= sn}; {@link #size()} if none. */
  public int ceilingPosition(long sn) {
    int at = Arrays.binarySearch(sns, 0, size, sn);
    return at >= 0 ? at : -at - 1;
  }

  public long snAt(int position) {
    return sns[position];
  }

  public long addressAt(int position) {
    return addresses[position];
  }
}
