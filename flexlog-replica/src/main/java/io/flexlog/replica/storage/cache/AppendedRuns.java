package io.flexlog.replica.storage.cache;

import java.util.Arrays;

/**
 * Where the cache put each record that was just appended to the log: per block, the records'
 * addresses and offsets in the order they were put. Appended addresses only grow, so each block's
 * run is sorted, and the whole index of a block is forgotten at once when the block is emptied.
 *
 * <p>Why not a hash map, as for the other records: every appended record was one insert into a map
 * of hundreds of thousands of entries and one removal when its block was evicted, each a cache miss
 * at a random slot, 11% of a replica's CPU on the append path
 * (docs/architecture.md#off-heap-cache). Here an append writes the next slot of two arrays and an
 * eviction resets a counter. A lookup checks the newest run first (live readers), remembers where
 * it found the last record of each run (readers move forward through it), and binary-searches
 * otherwise.
 *
 * <p>Memory: 12 bytes per cached appended record, in arrays kept for the next run of their block (a
 * hash map took about 25).
 *
 * <p>Threading: owned by the cache's owner thread.
 */
final class AppendedRuns {
  private static final int INITIAL_CAPACITY = 64;

  private final long[][] addresses;
  private final int[][] offsets;
  private final int[] lengths;
  private final int[] cursors;
  private int newest = -1;
  private long size;
  private long floor = Long.MAX_VALUE;
  private long lastAdded = Long.MIN_VALUE;

  AppendedRuns(int blocks) {
    this.addresses = new long[blocks][];
    this.offsets = new int[blocks][];
    this.lengths = new int[blocks];
    this.cursors = new int[blocks];
  }

  /** Records indexed in all runs. */
  long size() {
    return size;
  }

  /**
   * True when {@code address} is above every address added so far, so {@link #add} keeps the runs
   * sorted.
   */
  boolean accepts(long address) {
    return address > lastAdded;
  }

  /** Indexes a record put at {@code offset} of {@code block}; the address must be accepted. */
  void add(int block, long address, int offset) {
    int n = lengths[block];
    long[] blockAddresses = addresses[block];
    if (blockAddresses == null) {
      addresses[block] = blockAddresses = new long[INITIAL_CAPACITY];
      offsets[block] = new int[INITIAL_CAPACITY];
    } else if (n == blockAddresses.length) {
      addresses[block] = blockAddresses = Arrays.copyOf(blockAddresses, n << 1);
      offsets[block] = Arrays.copyOf(offsets[block], n << 1);
    }
    blockAddresses[n] = address;
    offsets[block][n] = offset;
    lengths[block] = n + 1;
    newest = block;
    lastAdded = address;
    if (size++ == 0) {
      floor = address;
    }
  }

  /** Forgets the run of an emptied block (its arrays are kept for its next run). */
  void clear(int block) {
    if (lengths[block] == 0) {
      return;
    }
    size -= lengths[block];
    lengths[block] = 0;
    cursors[block] = 0;
    floor = Long.MAX_VALUE;
    for (int b = 0; b < lengths.length; b++) {
      if (lengths[b] > 0) {
        floor = Math.min(floor, addresses[b][0]);
      }
    }
  }

  /** The location ({@code block << 32 | offset}) of an indexed address, or -1. */
  long find(long address) {
    if (address < floor || address > lastAdded) { // floor is MAX_VALUE when empty
      return -1L;
    }
    long location = findIn(newest, address);
    if (location != -1L) {
      return location;
    }
    for (int block = 0; block < lengths.length; block++) {
      if (block != newest) {
        location = findIn(block, address);
        if (location != -1L) {
          return location;
        }
      }
    }
    return -1L;
  }

  private long findIn(int block, long address) {
    int n = lengths[block];
    if (n == 0) {
      return -1L;
    }
    long[] run = addresses[block];
    if (address < run[0] || address > run[n - 1]) {
      return -1L;
    }
    int at = cursors[block];
    if (at >= n || run[at] != address) {
      at = at + 1 < n && run[at + 1] == address ? at + 1 : Arrays.binarySearch(run, 0, n, address);
      if (at < 0) {
        return -1L;
      }
      cursors[block] = at;
    }
    return ((long) block << 32) | offsets[block][at];
  }
}
