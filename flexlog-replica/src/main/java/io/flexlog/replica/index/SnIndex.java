package io.flexlog.replica.index;

import java.util.Arrays;

/**
 * The committed entries of one color on one shard replica: SNs in increasing order with the storage
 * address of each, binary-searched by SN and addressed by position ({@code 0 .. size() - 1}).
 *
 * <p>Compact and without large copies (docs/architecture.md#index): entries live in pages of up to
 * {@link #PAGE_ENTRIES}, each page a base SN and a base address with one {@code int} offset from
 * each base per entry, so an entry takes 8 bytes and the index grows a page at a time instead of
 * copying itself into an array twice its size. An entry whose SN or address lies more than an
 * {@code int} away from its page's bases (a new epoch, a jump of the log address) starts a new
 * page. {@link #discardThrough} drops the leading pages of trimmed entries, so the index holds what
 * the log retains, not everything it ever committed.
 *
 * <p>SNs almost always arrive in increasing order (the sequencer assigns them in order and the
 * connection is FIFO), so an insert is an append; the rare late commit (the ORDER_RESPONSE came
 * before the record) is inserted in place by shifting the rest of its page, splitting the page when
 * it is full.
 *
 * <p>Positions shift when entries are inserted before them or discarded, so a caller uses a
 * position only within the task that computed it.
 *
 * <p>Not thread-safe: owned by the replica's event-loop thread.
 */
public final class SnIndex {
  /** Returned by {@link #address} when the SN is not in the index. */
  public static final long NOT_FOUND = -1L;

  /** The most entries in one page. */
  public static final int PAGE_ENTRIES = 4096;

  private final int pageEntries;

  // The page directory: page k holds fills[k] entries from position starts[k] on.
  private int[][] snOffsets = new int[4][];
  private int[][] addressOffsets = new int[4][];
  private long[] baseSns = new long[4];
  private long[] baseAddresses = new long[4];
  private int[] fills = new int[4];
  private int[] starts = new int[4];
  private int pages;
  private int size;

  /** The page of the last position looked up: reads go through the index in order. */
  private int cursor;

  public SnIndex() {
    this(PAGE_ENTRIES);
  }

  /** With smaller pages, for tests of page boundaries. */
  SnIndex(int pageEntries) {
    if (pageEntries < 2) {
      throw new IllegalArgumentException("pageEntries < 2: " + pageEntries);
    }
    this.pageEntries = pageEntries;
  }

  public int size() {
    return size;
  }

  /** The largest SN in the index, or 0 when empty. */
  public long lastSn() {
    return size == 0 ? 0L : sn(pages - 1, fills[pages - 1] - 1);
  }

  /** The smallest SN in the index, or 0 when empty. */
  public long firstSn() {
    return size == 0 ? 0L : sn(0, 0);
  }

  /** Bytes held by the entries' pages (their capacity, in use or not), for tests and metrics. */
  public long pageBytes() {
    long bytes = 0;
    for (int k = 0; k < pages; k++) {
      bytes += 8L * snOffsets[k].length;
    }
    return bytes;
  }

  /**
   * Adds an entry.
   *
   * @return false if the SN is already present (the index is unchanged)
   */
  public boolean add(long sn, long address) {
    if (size == 0 || sn > lastSn()) {
      append(sn, address);
      return true;
    }
    int k = pageOfSn(sn);
    int at = searchPage(k, sn);
    if (at >= 0) {
      return false;
    }
    insert(k, -at - 1, sn, address);
    return true;
  }

  /** The address of the entry with this SN, or {@link #NOT_FOUND}. */
  public long address(long sn) {
    if (size == 0) {
      return NOT_FOUND;
    }
    int k = pageOfSn(sn);
    int at = searchPage(k, sn);
    return at >= 0 ? address(k, at) : NOT_FOUND;
  }

  /** Position of the first entry with an SN {@code >= sn}; {@link #size()} if none. */
  public int ceilingPosition(long sn) {
    if (size == 0) {
      return 0;
    }
    int k = pageOfSn(sn);
    int at = searchPage(k, sn);
    return starts[k] + (at >= 0 ? at : -at - 1);
  }

  public long snAt(int position) {
    int k = pageOfPosition(position);
    return sn(k, position - starts[k]);
  }

  public long addressAt(int position) {
    int k = pageOfPosition(position);
    return address(k, position - starts[k]);
  }

  /**
   * Drops the leading pages whose entries all have an SN {@code <= sn} (trimmed entries, which are
   * never served again); entries of a page that also holds later SNs stay until the page goes.
   *
   * @return the number of entries dropped
   */
  public int discardThrough(long sn) {
    int drop = 0;
    while (drop < pages && sn(drop, fills[drop] - 1) <= sn) {
      drop++;
    }
    if (drop == 0) {
      return 0;
    }
    int dropped = starts[drop - 1] + fills[drop - 1] - starts[0];
    int keep = pages - drop;
    System.arraycopy(snOffsets, drop, snOffsets, 0, keep);
    System.arraycopy(addressOffsets, drop, addressOffsets, 0, keep);
    System.arraycopy(baseSns, drop, baseSns, 0, keep);
    System.arraycopy(baseAddresses, drop, baseAddresses, 0, keep);
    System.arraycopy(fills, drop, fills, 0, keep);
    System.arraycopy(starts, drop, starts, 0, keep);
    Arrays.fill(snOffsets, keep, pages, null);
    Arrays.fill(addressOffsets, keep, pages, null);
    pages = keep;
    for (int k = 0; k < pages; k++) {
      starts[k] -= dropped;
    }
    size -= dropped;
    cursor = 0;
    return dropped;
  }

  // ---------------------------------------------------------------- pages

  private long sn(int page, int at) {
    return baseSns[page] + snOffsets[page][at];
  }

  private long address(int page, int at) {
    return baseAddresses[page] + addressOffsets[page][at];
  }

  private static boolean fits(long value, long base) {
    long offset = value - base;
    return offset == (int) offset;
  }

  private boolean fitsPage(int page, long sn, long address) {
    return fits(sn, baseSns[page]) && fits(address, baseAddresses[page]);
  }

  private void append(long sn, long address) {
    int k = pages - 1;
    if (k < 0 || fills[k] == pageEntries || !fitsPage(k, sn, address)) {
      k = openPage(pages, sn, address, size, Math.min(pageEntries, 64));
    }
    int at = fills[k];
    if (at == snOffsets[k].length) {
      snOffsets[k] = Arrays.copyOf(snOffsets[k], Math.min(pageEntries, at * 2));
      addressOffsets[k] = Arrays.copyOf(addressOffsets[k], snOffsets[k].length);
    }
    snOffsets[k][at] = (int) (sn - baseSns[k]);
    addressOffsets[k][at] = (int) (address - baseAddresses[k]);
    fills[k] = at + 1;
    size++;
  }

  /**
   * Inserts an empty page at directory slot {@code k}, starting at {@code position}, with room for
   * {@code capacity} entries before it grows. A new last page starts small, so that a color with
   * few records keeps a small index.
   */
  private int openPage(int k, long baseSn, long baseAddress, int position, int capacity) {
    if (pages == fills.length) {
      int directory = pages * 2;
      snOffsets = Arrays.copyOf(snOffsets, directory);
      addressOffsets = Arrays.copyOf(addressOffsets, directory);
      baseSns = Arrays.copyOf(baseSns, directory);
      baseAddresses = Arrays.copyOf(baseAddresses, directory);
      fills = Arrays.copyOf(fills, directory);
      starts = Arrays.copyOf(starts, directory);
    }
    int move = pages - k;
    System.arraycopy(snOffsets, k, snOffsets, k + 1, move);
    System.arraycopy(addressOffsets, k, addressOffsets, k + 1, move);
    System.arraycopy(baseSns, k, baseSns, k + 1, move);
    System.arraycopy(baseAddresses, k, baseAddresses, k + 1, move);
    System.arraycopy(fills, k, fills, k + 1, move);
    System.arraycopy(starts, k, starts, k + 1, move);
    snOffsets[k] = new int[capacity];
    addressOffsets[k] = new int[capacity];
    baseSns[k] = baseSn;
    baseAddresses[k] = baseAddress;
    fills[k] = 0;
    starts[k] = position;
    pages++;
    return k;
  }

  /** Inserts before entry {@code at} of page {@code k} (a late commit). */
  private void insert(int k, int at, long sn, long address) {
    if (!fitsPage(k, sn, address)) {
      // Rare twice over (a late commit across an epoch or a jump of the log address): a page of
      // its own before, after or between the two halves of page k.
      int page;
      if (at == 0) {
        page = openPage(k, sn, address, starts[k], 4);
      } else {
        if (at < fills[k]) {
          split(k, at);
        }
        page = openPage(k + 1, sn, address, starts[k] + fills[k], 4);
      }
      putAt(page, 0, sn, address);
      return;
    }
    if (fills[k] == pageEntries) {
      int half = pageEntries / 2;
      split(k, half);
      if (at > half) {
        k++;
        at -= half;
      }
    }
    putAt(k, at, sn, address);
  }

  /** Moves the entries of page {@code k} from {@code at} on into a new page right after it. */
  private void split(int k, int at) {
    int moved = fills[k] - at;
    int page = openPage(k + 1, baseSns[k], baseAddresses[k], starts[k] + at, pageEntries);
    System.arraycopy(snOffsets[k], at, snOffsets[page], 0, moved);
    System.arraycopy(addressOffsets[k], at, addressOffsets[page], 0, moved);
    fills[page] = moved;
    fills[k] = at;
  }

  private void putAt(int k, int at, long sn, long address) {
    int fill = fills[k];
    if (fill == snOffsets[k].length) {
      snOffsets[k] = Arrays.copyOf(snOffsets[k], Math.min(pageEntries, Math.max(4, fill * 2)));
      addressOffsets[k] = Arrays.copyOf(addressOffsets[k], snOffsets[k].length);
    }
    System.arraycopy(snOffsets[k], at, snOffsets[k], at + 1, fill - at);
    System.arraycopy(addressOffsets[k], at, addressOffsets[k], at + 1, fill - at);
    snOffsets[k][at] = (int) (sn - baseSns[k]);
    addressOffsets[k][at] = (int) (address - baseAddresses[k]);
    fills[k] = fill + 1;
    for (int p = k + 1; p < pages; p++) {
      starts[p]++;
    }
    size++;
  }

  /** The last page whose first SN is {@code <= sn}, or page 0. Only when not empty. */
  private int pageOfSn(long sn) {
    int low = 0;
    int high = pages - 1;
    while (low < high) {
      int mid = (low + high + 1) >>> 1;
      if (sn(mid, 0) <= sn) {
        low = mid;
      } else {
        high = mid - 1;
      }
    }
    return low;
  }

  /** As {@link Arrays#binarySearch}, within page {@code k}. */
  private int searchPage(int k, long sn) {
    long base = baseSns[k];
    int[] offsets = snOffsets[k];
    int low = 0;
    int high = fills[k] - 1;
    while (low <= high) {
      int mid = (low + high) >>> 1;
      long value = base + offsets[mid];
      if (value < sn) {
        low = mid + 1;
      } else if (value > sn) {
        high = mid - 1;
      } else {
        return mid;
      }
    }
    return -(low + 1);
  }

  private int pageOfPosition(int position) {
    if (position < 0 || position >= size) {
      throw new IndexOutOfBoundsException("position " + position + " of " + size);
    }
    int k = cursor < pages ? cursor : 0;
    if (position >= starts[k] && position < starts[k] + fills[k]) {
      return k;
    }
    if (k + 1 < pages && position >= starts[k + 1] && position < starts[k + 1] + fills[k + 1]) {
      cursor = k + 1;
      return k + 1;
    }
    int low = 0;
    int high = pages - 1;
    while (low < high) {
      int mid = (low + high + 1) >>> 1;
      if (starts[mid] <= position) {
        low = mid;
      } else {
        high = mid - 1;
      }
    }
    cursor = low;
    return low;
  }
}
