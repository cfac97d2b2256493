package io.flexlog.replica.storage.chunk;

import static io.flexlog.replica.storage.chunk.ChunkHeaderDescriptor.ENTRIES_OFFSET;

import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.TrimPoints;
import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.function.LongPredicate;

/**
 * The log logic both engines share: entry layout ({@link PmEntryDescriptor}), append, commit, flush
 * coalescing, reads and trim, over one {@link ChunkMemory} per chunk. Engines only provide the
 * memory and how a range is made durable. The chunks' life (free list, sealing, reuse, the hand-off
 * to tiering) is {@link ChunkPool}'s, the recovery scan {@link ChunkRecovery}'s.
 *
 * <p><b>Addresses.</b> An entry's address is {@code chunkSequence << 32 | offset}. Chunk sequences
 * are never reused, so addresses only increase, and an address stays valid for the entry's whole
 * life in this log: a chunk index is only a physical slot, found through a small primitive map.
 * When the entry moves to the SSD tier the same address finds it there ({@code TieredLogStorage}).
 *
 * <p><b>Writing.</b> Entries are appended one after the other into the open chunk; when an entry
 * does not fit, the open chunk is sealed and the next free chunk opened. A commit writes the SN in
 * place and remembers its position; {@link #flush()} makes the appended range and the SN words
 * durable, merging SN words that lie close together into one range.
 *
 * <p><b>Recovery</b> ({@link ChunkRecovery}) replays the valid entries of every chunk; the writer
 * continues after the last valid entry of the chunk with the highest sequence.
 *
 * <p>Threading: one owner thread, like {@link LogStorage}; the tiering thread only reads chunks
 * that {@link #beginTiering} handed it, through {@link ChunkMemory#readBuffer}. Steady state
 * allocates nothing except when the array of pending SN commits has to grow (amortised, bounded by
 * the batch size).
 */
final class ChunkLog {
  private final ChunkPool pool;
  private final int chunkSize;
  private final int coalesceGapBytes;
  private final TrimTable trims;
  private final EntryChecksum checksum = new EntryChecksum();

  private int current = -1;
  private long currentSequence;
  private int writeOffset;
  private int flushedOffset;
  private boolean recovered;

  // Entries committed since the last flush, as (chunk index << 32 | offset); their SN words are
  // flushed at flush().
  private long[] commits = new long[256];
  private int commitCount;

  /**
   * @param chunks the chunks, every one formatted ({@link ChunkHeaders#format})
   * @param coalesceGapBytes SN words closer than this are flushed as one range: a cache-line flush
   *     engine wants a small gap, a page-granular msync engine a page
   * @param fresh true when the chunks were just formatted: no recovery is needed before appending
   */
  ChunkLog(
      ChunkMemory[] chunks, int chunkSize, int coalesceGapBytes, boolean fresh, TrimTable trims) {
    this.pool = new ChunkPool(chunks, chunkSize);
    this.chunkSize = chunkSize;
    this.coalesceGapBytes = coalesceGapBytes;
    this.trims = trims;
    this.recovered = fresh;
  }

  static long address(long chunkSequence, int offset) {
    return (chunkSequence << 32) | offset;
  }

  static long chunkSequence(long address) {
    return address >>> 32;
  }

  static int offset(long address) {
    return (int) address;
  }

  // ---------------------------------------------------------------- writing

  long appendPending(
      int shardId,
      int colorId,
      long tokenSession,
      long tokenSequence,
      ByteBuf source,
      int index,
      int length) {
    requireRecovered();
    long entryLength = PmEntryDescriptor.entryLength(length);
    if (length > ChunkHeaderDescriptor.maxPayloadLength(chunkSize)) {
      throw new IllegalArgumentException(
          "payload of " + length + " bytes does not fit in a chunk of " + chunkSize + " bytes");
    }
    if ((current < 0 || writeOffset + entryLength > chunkSize) && !openNextChunk()) {
      return LogStorage.NO_SPACE;
    }
    ChunkMemory chunk = pool.memory(current);
    int at = writeOffset;
    chunk.putInt(at + PmEntryDescriptor.PAYLOAD_LENGTH_OFFSET, length);
    chunk.putLong(at + PmEntryDescriptor.TOKEN_SESSION_OFFSET, tokenSession);
    chunk.putLong(at + PmEntryDescriptor.TOKEN_SEQUENCE_OFFSET, tokenSequence);
    chunk.putInt(at + PmEntryDescriptor.COLOR_OFFSET, colorId);
    chunk.putInt(at + PmEntryDescriptor.SHARD_OFFSET, shardId);
    chunk.putLong(at + PmEntryDescriptor.SN_OFFSET, PmEntryDescriptor.PENDING_SN);
    chunk.copyIn(at + PmEntryDescriptor.PAYLOAD_OFFSET, source, index, length);
    // CRC over the bytes as they landed in the log, so the check covers the copy itself.
    chunk.putInt(
        at + PmEntryDescriptor.CRC_OFFSET, checksum.compute(chunk, currentSequence, at, length));
    writeOffset = at + (int) entryLength;
    pool.pendingAdded(current);
    pool.entryAdded(current);
    return address(currentSequence, at);
  }

  void commit(long address, long sn) {
    int index = indexOf(address);
    int at = checkedOffset(index, address);
    ChunkMemory chunk = pool.memory(index);
    boolean wasPending =
        chunk.getLong(at + PmEntryDescriptor.SN_OFFSET) == PmEntryDescriptor.PENDING_SN;
    chunk.putLong(at + PmEntryDescriptor.SN_OFFSET, sn);
    pool.committed(index, wasPending, chunk.getInt(at + PmEntryDescriptor.COLOR_OFFSET), sn);
    if (commitCount == commits.length) {
      commits = Arrays.copyOf(commits, commitCount * 2);
    }
    commits[commitCount++] = ((long) index << 32) | at;
  }

  void flush() {
    int rangeStart = flushedOffset;
    int rangeEnd = writeOffset;
    if (current >= 0 && rangeEnd > rangeStart) {
      pool.memory(current).flush(rangeStart, rangeEnd - rangeStart);
    }
    int i = 0;
    while (i < commitCount) {
      long packed = commits[i];
      int chunk = (int) (packed >>> 32);
      int start = (int) packed + PmEntryDescriptor.SN_OFFSET;
      int end = start + Long.BYTES;
      i++;
      if (chunk == current && start >= rangeStart && end <= rangeEnd) {
        continue; // flushed with the appended range above
      }
      // Commits mostly arrive in append order: merge ascending neighbours into one flush.
      while (i < commitCount && (int) (commits[i] >>> 32) == chunk) {
        int nextStart = (int) commits[i] + PmEntryDescriptor.SN_OFFSET;
        if (nextStart < start || nextStart - end > coalesceGapBytes) {
          break;
        }
        end = Math.max(end, nextStart + Long.BYTES);
        i++;
      }
      pool.memory(chunk).flush(start, end - start);
    }
    commitCount = 0;
    flushedOffset = writeOffset;
    pool.reclaimDrained();
  }

  /** Seals the open chunk (its appended range made durable) and opens the next free one. */
  private boolean openNextChunk() {
    int next = pool.takeFree();
    if (next < 0) {
      return false;
    }
    if (current >= 0) {
      if (writeOffset > flushedOffset) {
        pool.memory(current).flush(flushedOffset, writeOffset - flushedOffset);
      }
      pool.seal(current, writeOffset);
    }
    currentSequence = pool.open(next);
    current = next;
    writeOffset = ENTRIES_OFFSET;
    flushedOffset = ENTRIES_OFFSET;
    return true;
  }

  // ---------------------------------------------------------------- reading

  /** True when the entry's chunk is live in this log (not freed, not tiered away). */
  boolean holds(long address) {
    long seq = chunkSequence(address);
    return (current >= 0 && seq == currentSequence) || pool.indexOfSequence(seq) >= 0;
  }

  /** True when a chunk with this sequence is live, also before recovery. */
  boolean holdsSequence(long chunkSequence) {
    return pool.indexOfSequence(chunkSequence) >= 0;
  }

  int payloadLength(long address) {
    int index = indexOf(address);
    int at = checkedOffset(index, address);
    return pool.memory(index).getInt(at + PmEntryDescriptor.PAYLOAD_LENGTH_OFFSET);
  }

  long tokenSession(long address) {
    int index = indexOf(address);
    int at = checkedOffset(index, address);
    return pool.memory(index).getLong(at + PmEntryDescriptor.TOKEN_SESSION_OFFSET);
  }

  long tokenSequence(long address) {
    int index = indexOf(address);
    int at = checkedOffset(index, address);
    return pool.memory(index).getLong(at + PmEntryDescriptor.TOKEN_SEQUENCE_OFFSET);
  }

  ByteBuf payload(long address) {
    int index = indexOf(address);
    int at = checkedOffset(index, address);
    ChunkMemory chunk = pool.memory(index);
    int length = chunk.getInt(at + PmEntryDescriptor.PAYLOAD_LENGTH_OFFSET);
    return chunk.readOnlyView(at + PmEntryDescriptor.PAYLOAD_OFFSET, length);
  }

  /** {@link io.flexlog.replica.storage.LogStorage#scanCopy} for an entry of this log. */
  int copyPayload(long address, ByteBuf dst, int copyBelow) {
    int index = indexOf(address);
    int at = checkedOffset(index, address);
    ChunkMemory chunk = pool.memory(index);
    int length = chunk.getInt(at + PmEntryDescriptor.PAYLOAD_LENGTH_OFFSET);
    if (length >= copyBelow) {
      return -1 - length;
    }
    chunk.copyOut(at + PmEntryDescriptor.PAYLOAD_OFFSET, dst, length);
    return length;
  }

  ByteBuf retainedPayload(long address) {
    int index = indexOf(address);
    int at = checkedOffset(index, address);
    ChunkMemory chunk = pool.memory(index);
    int length = chunk.getInt(at + PmEntryDescriptor.PAYLOAD_LENGTH_OFFSET);
    return chunk.retainedView(at + PmEntryDescriptor.PAYLOAD_OFFSET, length);
  }

  /**
   * Space not available for new entries: every chunk that is not free (the open one up to its write
   * position, freed ones until their retained views are released).
   */
  long usedBytes() {
    int live = pool.liveChunks();
    return current < 0 ? (long) live * chunkSize : (long) (live - 1) * chunkSize + writeOffset;
  }

  /** Entries in the chunks that are not free; see {@link ChunkPool#readableEntries}. */
  long entries() {
    return pool.readableEntries();
  }

  int chunkSize() {
    return chunkSize;
  }

  int chunkCount() {
    return pool.chunkCount();
  }

  long capacityBytes() {
    return (long) pool.chunkCount() * chunkSize;
  }

  /** The chunk index that holds {@code address}; for engine tests that fabricate torn states. */
  int chunkIndexOf(long address) {
    return indexOf(address);
  }

  /** The chunk's memory: the tiering thread reads a tiering chunk through its readBuffer. */
  ChunkMemory memory(int chunkIndex) {
    return pool.memory(chunkIndex);
  }

  // ---------------------------------------------------------------- trim

  long trimPoint(int colorId) {
    return trims.trimPoint(colorId);
  }

  TrimPoints trimPoints() {
    return trims.snapshot();
  }

  /**
   * Raises the color's trim point, durably before it returns, after making earlier appends and
   * commits durable; then frees every chunk whose entries are all dead.
   */
  void trim(int colorId, long sn) {
    flush();
    if (trims.raise(colorId, sn)) {
      pool.freeDeadChunks(trims);
      pool.reclaimDrained();
    }
  }

  // ---------------------------------------------------------------- tiering

  /** See {@link ChunkPool#beginTiering}: the chunks stay readable here until finishTiering. */
  int beginTiering(long maxBytes, int[] out) {
    return pool.beginTiering(maxBytes, out);
  }

  long sequenceOf(int chunkIndex) {
    return pool.sequenceOf(chunkIndex);
  }

  /** Where the entries of a sealed or tiering chunk end. */
  int entriesEnd(int chunkIndex) {
    return pool.entriesEnd(chunkIndex);
  }

  /** See {@link ChunkPool#finishTiering}. */
  void finishTiering(int[] chunkIndexes, int count, boolean moved) {
    pool.finishTiering(chunkIndexes, count, moved);
  }

  // ---------------------------------------------------------------- recovery

  void recover(LogStorage.EntryVisitor visitor) {
    recover(visitor, sequenceOfChunk -> false, 0);
  }

  /**
   * Replays the live entries in address order ({@link ChunkRecovery}) and positions the writer
   * after the last valid entry of the chunk with the highest sequence.
   *
   * @param coveredBySegment chunk sequences whose entries a complete SSD segment holds: those
   *     chunks are freed without being replayed (the segment is authoritative)
   * @param sequenceFloor the highest chunk sequence the SSD tier has seen; new chunks get higher
   *     ones
   */
  void recover(
      LogStorage.EntryVisitor visitor, LongPredicate coveredBySegment, long sequenceFloor) {
    if (recovered && current >= 0) {
      throw new IllegalStateException("recover() must be called once, before the first append");
    }
    int last = new ChunkRecovery(pool, trims, checksum).replay(visitor, coveredBySegment);
    if (last >= 0) {
      current = last;
      currentSequence = pool.sequenceOf(last);
      pool.reopen(last);
      writeOffset = pool.entriesEnd(last);
    }
    flushedOffset = writeOffset;
    pool.raiseSequenceFloor(sequenceFloor);
    recovered = true;
    pool.freeDeadChunks(trims);
    pool.reclaimDrained();
  }

  // ---------------------------------------------------------------- helpers

  private int indexOf(long address) {
    long seq = chunkSequence(address);
    if (current >= 0 && seq == currentSequence) {
      return current;
    }
    int index = pool.indexOfSequence(seq);
    if (index < 0) {
      throw new IllegalArgumentException(
          "no live chunk holds address 0x"
              + Long.toHexString(address)
              + " (never written, trimmed or moved to the SSD tier)");
    }
    return index;
  }

  private int checkedOffset(int index, long address) {
    int at = offset(address);
    int limit = index == current ? writeOffset : pool.entriesEnd(index);
    if (at < ENTRIES_OFFSET
        || at > limit - PmEntryDescriptor.HEADER_LENGTH
        || (at & (PmEntryDescriptor.ALIGNMENT - 1)) != 0) {
      throw new IllegalArgumentException("not an entry address: 0x" + Long.toHexString(address));
    }
    return at;
  }

  private void requireRecovered() {
    if (!recovered) {
      throw new IllegalStateException(
          "recover() must be called before appending to an existing log");
    }
  }
}
