package io.flexlog.replica.storage.cache;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.agrona.collections.Long2LongHashMap;

/**
 * The off-heap DRAM tier: recent and recently read records, by storage address, within a byte
 * budget. No heap object per record: payloads live in a fixed number of off-heap blocks ({@link
 * CacheRecordDescriptor} records packed one after the other). Records just appended to the log are
 * found through each block's sorted run of their addresses ({@link AppendedRuns}), other records
 * (put after a read from a lower tier) through one primitive hash map from address to (block,
 * offset).
 *
 * <p>Eviction is CLOCK over blocks: records are appended to the head block; when it is full the
 * clock hand moves over the other blocks, giving a block that was read since the hand last passed a
 * second chance, and empties the first one that was not. Evicting a block drops its records from
 * the index. A block with views still held elsewhere ({@link #retainedView}, e.g. queued in a Netty
 * channel) is not overwritten: the cache lets go of it (its memory is freed when the last view is
 * released) and allocates a fresh block instead, so the budget may be exceeded by what sockets
 * still hold.
 *
 * <p>Records larger than a block are not cached. Blocks are allocated on first use.
 *
 * <p>Threading: owned by the storage's owner thread; views may be released from any thread.
 */
public final class RecordCache implements AutoCloseable {
  /** Smallest budget that enables the cache. */
  public static final long MIN_BUDGET_BYTES = 64 * 1024;

  private static final int MIN_BLOCK_BYTES = 64 * 1024;
  private static final int MAX_BLOCK_BYTES = 4 << 20;
  private static final int BLOCKS_PER_BUDGET = 16;

  /** In a record's flags: it is in the hash map, not in its block's run. */
  private static final int READ_FLAG = 1;

  private final int blockBytes;
  private final ByteBuf[] blocks;
  private final int[] fill;
  private final boolean[] referenced;

  /** Per block, the records in {@link #index} rather than in {@link #runs}. */
  private final int[] readRecords;

  /** Records put by {@link #put}: read from a lower tier. */
  private final Long2LongHashMap index = new Long2LongHashMap(-1L);

  /** Records put by {@link #putAppended}. */
  private final AppendedRuns runs;

  private int head = -1;
  private int hand = -1;
  private long usedBytes;
  private long evictedBlocks;

  /**
   * @param budgetBytes 0 to disable, else at least {@link #MIN_BUDGET_BYTES}
   */
  public RecordCache(long budgetBytes) {
    if (budgetBytes != 0 && budgetBytes < MIN_BUDGET_BYTES) {
      throw new IllegalArgumentException(
          "cache budget " + budgetBytes + " is below the minimum of " + MIN_BUDGET_BYTES);
    }
    long block = Math.min(MAX_BLOCK_BYTES, (budgetBytes / BLOCKS_PER_BUDGET) & ~4095L);
    this.blockBytes = (int) Math.max(MIN_BLOCK_BYTES, block);
    int count = budgetBytes == 0 ? 0 : (int) Math.min(Integer.MAX_VALUE, budgetBytes / blockBytes);
    this.blocks = new ByteBuf[count];
    this.fill = new int[count];
    this.referenced = new boolean[count];
    this.readRecords = new int[count];
    this.runs = new AppendedRuns(count);
  }

  public boolean isEnabled() {
    return blocks.length > 0;
  }

  /** Bytes of records in the cache. */
  public long usedBytes() {
    return usedBytes;
  }

  /** The budget actually used: whole blocks. */
  public long capacityBytes() {
    return (long) blocks.length * blockBytes;
  }

  public int blockBytes() {
    return blockBytes;
  }

  public int records() {
    return (int) (index.size() + runs.size());
  }

  /** Blocks emptied by the clock so far. */
  public long evictedBlocks() {
    return evictedBlocks;
  }

  /** True when a payload of this length can be cached at all. */
  public boolean fits(int payloadLength) {
    return isEnabled() && CacheRecordDescriptor.recordLength(payloadLength) <= blockBytes;
  }

  public boolean contains(long address) {
    return locate(address) != -1L;
  }

  /**
   * Copies a payload into the cache (evicting as needed) unless it is there already or too large.
   * The source's indexes are not moved.
   *
   * @return true when the record is in the cache afterwards
   */
  public boolean put(long address, ByteBuf source, int sourceIndex, int length) {
    if (!fits(length)) {
      return false;
    }
    if (locate(address) != -1L) {
      return true;
    }
    copyIn(address, source, sourceIndex, length, false);
    return true;
  }

  /**
   * As {@link #put} for a record just appended to the log: its address is new and above every
   * address appended before (addresses only grow), so it is not searched for first and goes into
   * its block's run ({@link AppendedRuns}) instead of the hash map.
   *
   * @return true when the record is in the cache afterwards
   */
  public boolean putAppended(long address, ByteBuf source, int sourceIndex, int length) {
    if (!fits(length)) {
      return false;
    }
    copyIn(address, source, sourceIndex, length, runs.accepts(address));
    return true;
  }

  private void copyIn(long address, ByteBuf source, int sourceIndex, int length, boolean appended) {
    int need = CacheRecordDescriptor.recordLength(length);
    if (head < 0 || fill[head] + need > blockBytes) {
      head = nextBlock();
    }
    ByteBuf block = blocks[head];
    int at = fill[head];
    block.setLongLE(at + CacheRecordDescriptor.ADDRESS_OFFSET, address);
    block.setIntLE(at + CacheRecordDescriptor.LENGTH_OFFSET, length);
    block.setIntLE(at + CacheRecordDescriptor.FLAGS_OFFSET, appended ? 0 : READ_FLAG);
    block.setBytes(at + CacheRecordDescriptor.PAYLOAD_OFFSET, source, sourceIndex, length);
    if (appended) {
      runs.add(head, address, at);
    } else {
      index.put(address, ((long) head << 32) | at);
      readRecords[head]++;
    }
    fill[head] = at + need;
    usedBytes += need;
  }

  /** The cached payload length, or -1 when the address is not cached. */
  public int length(long address) {
    long location = locate(address);
    return location == -1L ? -1 : payloadLength(location);
  }

  /**
   * A read-only view of the cached payload, valid until the next {@link #put}; null when not
   * cached. Counts as a use for eviction.
   */
  public ByteBuf view(long address) {
    long location = use(address);
    if (location == -1L) {
      return null;
    }
    return block(location).slice(payloadOffset(location), payloadLength(location)).asReadOnly();
  }

  /**
   * A read-only view the caller owns and releases; its bytes stay valid after eviction. Null when
   * not cached. Counts as a use for eviction.
   */
  public ByteBuf retainedView(long address) {
    long location = use(address);
    if (location == -1L) {
      return null;
    }
    return block(location)
        .retainedSlice(payloadOffset(location), payloadLength(location))
        .asReadOnly();
  }

  /** Returned by {@link #copyOut} when the address is not cached. */
  public static final int NOT_CACHED = Integer.MIN_VALUE;

  /**
   * Appends the cached payload to {@code dst} when it is shorter than {@code copyBelow} and returns
   * its length; returns {@code -1 - length} without copying when it is not shorter, and {@link
   * #NOT_CACHED} when the address is not cached. Counts as a use for eviction.
   */
  public int copyOut(long address, ByteBuf dst, int copyBelow) {
    long location = use(address);
    if (location == -1L) {
      return NOT_CACHED;
    }
    int length = payloadLength(location);
    if (length >= copyBelow) {
      return -1 - length;
    }
    dst.writeBytes(block(location), payloadOffset(location), length);
    return length;
  }

  // A location is the block's slot in the high 32 bits and the record's offset in the low 32.

  /** The location of a cached address, marked as used for eviction; -1 when not cached. */
  private long use(long address) {
    long location = locate(address);
    if (location != -1L) {
      referenced[(int) (location >>> 32)] = true;
    }
    return location;
  }

  /** The location of a cached address, or -1. */
  private long locate(long address) {
    long location = runs.find(address);
    return location != -1L || index.isEmpty() ? location : index.get(address);
  }

  private ByteBuf block(long location) {
    return blocks[(int) (location >>> 32)];
  }

  private int payloadLength(long location) {
    return block(location).getIntLE((int) location + CacheRecordDescriptor.LENGTH_OFFSET);
  }

  private static int payloadOffset(long location) {
    return (int) location + CacheRecordDescriptor.PAYLOAD_OFFSET;
  }

  /** Releases the cache's blocks; views still held elsewhere keep their memory until released. */
  @Override
  public void close() {
    for (int i = 0; i < blocks.length; i++) {
      if (blocks[i] != null) {
        blocks[i].release();
        blocks[i] = null;
      }
      runs.clear(i);
      readRecords[i] = 0;
    }
    index.clear();
    usedBytes = 0;
    head = -1;
  }

  /** Moves the clock hand to the block the next records go into, emptying it if needed. */
  private int nextBlock() {
    if (blocks.length == 1) {
      evict(0);
      return prepare(0);
    }
    while (true) {
      hand = hand + 1 == blocks.length ? 0 : hand + 1;
      if (hand == head) {
        continue;
      }
      if (blocks[hand] == null) {
        return prepare(hand);
      }
      if (referenced[hand]) {
        referenced[hand] = false; // second chance
        continue;
      }
      evict(hand);
      return prepare(hand);
    }
  }

  private int prepare(int slot) {
    if (blocks[slot] == null) {
      blocks[slot] = Unpooled.directBuffer(blockBytes, blockBytes);
    }
    fill[slot] = 0;
    referenced[slot] = false;
    return slot;
  }

  private void evict(int slot) {
    ByteBuf block = blocks[slot];
    if (block == null) {
      return;
    }
    runs.clear(slot);
    int at = 0;
    while (readRecords[slot] > 0 && at < fill[slot]) { // walk only for records in the hash map
      long address = block.getLongLE(at + CacheRecordDescriptor.ADDRESS_OFFSET);
      int length = block.getIntLE(at + CacheRecordDescriptor.LENGTH_OFFSET);
      if (block.getIntLE(at + CacheRecordDescriptor.FLAGS_OFFSET) == READ_FLAG) {
        readRecords[slot]--;
        long location = ((long) slot << 32) | at;
        long indexed = index.remove(address);
        if (indexed != location && indexed != -1L) {
          index.put(address, indexed); // cached again elsewhere since (rare): keep that copy
        }
      }
      at += CacheRecordDescriptor.recordLength(length);
    }
    readRecords[slot] = 0;
    usedBytes -= fill[slot];
    fill[slot] = 0;
    evictedBlocks++;
    if (block.refCnt() > 1) {
      // Views are still out there (a socket has not written them yet): leave them this memory.
      block.release();
      blocks[slot] = null;
    }
  }
}
