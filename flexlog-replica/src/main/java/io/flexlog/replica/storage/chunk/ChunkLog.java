package io.flexlog.replica.storage.chunk;

import static io.flexlog.replica.storage.chunk.ChunkHeaderDescriptor.CHUNK_INDEX_OFFSET;
import static io.flexlog.replica.storage.chunk.ChunkHeaderDescriptor.CHUNK_SEQUENCE_OFFSET;
import static io.flexlog.replica.storage.chunk.ChunkHeaderDescriptor.CHUNK_SIZE_OFFSET;
import static io.flexlog.replica.storage.chunk.ChunkHeaderDescriptor.ENTRIES_OFFSET;
import static io.flexlog.replica.storage.chunk.ChunkHeaderDescriptor.MAGIC_OFFSET;
import static io.flexlog.replica.storage.chunk.ChunkHeaderDescriptor.VERSION_OFFSET;

import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.StorageException;
import io.flexlog.replica.storage.TrimPoints;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.function.LongPredicate;
import java.util.zip.CRC32C;
import org.agrona.collections.IntArrayList;
import org.agrona.collections.IntArrayQueue;
import org.agrona.collections.Long2LongHashMap;

/**
 * The log logic both engines share: entry layout ({@link PmEntryDescriptor}), chunk order ({@link
 * ChunkHeaderDescriptor}), append, commit, flush coalescing, trim, chunk reuse and recovery, over
 * one {@link ChunkMemory} per chunk. Engines only provide the memory and how a range is made
 * durable.
 *
 * <p><b>Addresses.</b> An entry's address is {@code chunkSequence << 32 | offset}. Chunk sequences
 * are never reused, so addresses only increase, and an address stays valid for the entry's whole
 * life in this log: a chunk index is only a physical slot, found through a small primitive map.
 * When the entry moves to the SSD tier the same address finds it there ({@code TieredLogStorage}).
 *
 * <p><b>Chunk life.</b> Free chunks wait on a free list. Entries are appended one after the other
 * into the open chunk; when an entry does not fit, the next free chunk is opened with the next
 * chunk sequence, made durable before any entry is written into it. A sealed chunk is freed once
 * every entry in it is dead (committed at or below its color's trim point) or has been copied to an
 * SSD segment: it leaves the address map at once, and goes back to the free list, its sequence
 * negated durably, as soon as no {@linkplain ChunkMemory#retainedView retained view} of it is
 * outstanding. A reused chunk is not zeroed: entry CRCs cover the chunk sequence, so entries of its
 * previous life fail their check.
 *
 * <p><b>Recovery</b> reads chunks in sequence order and, inside a chunk, entries in order up to the
 * first one that fails its length or CRC check. Whatever follows that point in the chunk is erased
 * (zeroed and flushed), so a stale entry that happens to pass its CRC can never reappear after the
 * writer overwrites the torn one. A torn entry ends only its own chunk: later chunks are still
 * read. After a process crash only the last chunk can have a torn entry; after a machine crash in
 * {@code fsync}/{@code pmem} mode unflushed writes may reach the media in any order, so an earlier
 * chunk can lose unflushed entries while a later one keeps some. Those entries were never
 * acknowledged, each is self-validating by CRC, and the replica treats recovered pending entries as
 * new requests, so they are kept as part of the log rather than rejected. Committed entries at or
 * below their color's trim point are not replayed. The writer continues after the last valid entry
 * of the chunk with the highest sequence.
 *
 * <p>Threading: one owner thread, like {@link LogStorage}; the tiering thread only reads chunks
 * that {@link #beginTiering} handed it, through {@link ChunkMemory#readBuffer}. Steady state
 * allocates nothing except when the array of pending SN commits has to grow (amortised, bounded by
 * the batch size).
 */
final class ChunkLog {
  /** The largest chunk sequence: addresses must stay positive longs. */
  static final long MAX_SEQUENCE = Integer.MAX_VALUE;

  private static final byte FREE = 0;
  private static final byte OPEN = 1;
  private static final byte SEALED = 2;
  private static final byte TIERING = 3;
  private static final byte DRAINING = 4;

  private final ChunkMemory[] chunks;
  private final int chunkSize;
  private final int coalesceGapBytes;
  private final TrimTable trims;
  private final CRC32C crc = new CRC32C();
  private final ByteBuffer crcSeed = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);

  // Per chunk index: the header's sequence (> 0 live, <= 0 free), state, end of entries (sealed
  // chunks), pending entries, committed colors.
  private final long[] sequence;
  private final byte[] state;
  private final int[] end;
  private final int[] pending;
  private final ChunkColors colors;
  private final Long2LongHashMap indexBySequence = new Long2LongHashMap(-1L);
  private final IntArrayQueue freeList;
  private final IntArrayList draining = new IntArrayList();
  private long nextChunkSequence = 1;
  private int liveChunks;

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
   * @param chunks the chunks, every one formatted ({@link #format})
   * @param coalesceGapBytes SN words closer than this are flushed as one range: a cache-line flush
   *     engine wants a small gap, a page-granular msync engine a page
   * @param fresh true when the chunks were just formatted: no recovery is needed before appending
   */
  ChunkLog(
      ChunkMemory[] chunks, int chunkSize, int coalesceGapBytes, boolean fresh, TrimTable trims) {
    this.chunks = chunks;
    this.chunkSize = chunkSize;
    this.coalesceGapBytes = coalesceGapBytes;
    this.trims = trims;
    this.sequence = new long[chunks.length];
    this.state = new byte[chunks.length];
    this.end = new int[chunks.length];
    this.pending = new int[chunks.length];
    this.colors = new ChunkColors(chunks.length);
    this.freeList = new IntArrayQueue(Math.max(8, chunks.length), -1);
    for (int i = 0; i < chunks.length; i++) {
      long seq = validateHeader(chunks[i], i, chunkSize);
      sequence[i] = seq;
      nextChunkSequence = Math.max(nextChunkSequence, Math.abs(seq) + 1);
      if (seq > 0) {
        state[i] = SEALED; // until recovery says otherwise
        end[i] = chunkSize; // entries can be read while recovery replays them
        indexBySequence.put(seq, i);
        liveChunks++;
      } else {
        freeList.addInt(i);
      }
    }
    this.recovered = fresh;
  }

  /** Writes an empty chunk header (sequence 0), zeroing anything after it, and flushes. */
  static void format(ChunkMemory chunk, int chunkIndex, int chunkSize) {
    eraseNonZero(chunk, 0, chunkSize);
    chunk.putLong(MAGIC_OFFSET, ChunkHeaderDescriptor.MAGIC);
    chunk.putInt(VERSION_OFFSET, ChunkHeaderDescriptor.VERSION);
    chunk.putInt(CHUNK_INDEX_OFFSET, chunkIndex);
    chunk.putLong(CHUNK_SIZE_OFFSET, chunkSize);
    chunk.putLong(CHUNK_SEQUENCE_OFFSET, 0);
    chunk.flush(0, ChunkHeaderDescriptor.HEADER_LENGTH);
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
      int shardId, int colorId, long tokenSession, long tokenSequence, ByteBuf payload) {
    requireRecovered();
    int length = payload.readableBytes();
    long entryLength = PmEntryDescriptor.entryLength(length);
    if (length > ChunkHeaderDescriptor.maxPayloadLength(chunkSize)) {
      throw new IllegalArgumentException(
          "payload of " + length + " bytes does not fit in a chunk of " + chunkSize + " bytes");
    }
    if ((current < 0 || writeOffset + entryLength > chunkSize) && !openNextChunk()) {
      return LogStorage.NO_SPACE;
    }
    ChunkMemory chunk = chunks[current];
    int at = writeOffset;
    chunk.putInt(at + PmEntryDescriptor.PAYLOAD_LENGTH_OFFSET, length);
    chunk.putLong(at + PmEntryDescriptor.TOKEN_SESSION_OFFSET, tokenSession);
    chunk.putLong(at + PmEntryDescriptor.TOKEN_SEQUENCE_OFFSET, tokenSequence);
    chunk.putInt(at + PmEntryDescriptor.COLOR_OFFSET, colorId);
    chunk.putInt(at + PmEntryDescriptor.SHARD_OFFSET, shardId);
    chunk.putLong(at + PmEntryDescriptor.SN_OFFSET, PmEntryDescriptor.PENDING_SN);
    chunk.copyIn(at + PmEntryDescriptor.PAYLOAD_OFFSET, payload, payload.readerIndex(), length);
    // CRC over the bytes as they landed in the log, so the check covers the copy itself.
    chunk.putInt(at + PmEntryDescriptor.CRC_OFFSET, computeCrc(chunk, currentSequence, at, length));
    writeOffset = at + (int) entryLength;
    pending[current]++;
    return address(currentSequence, at);
  }

  void commit(long address, long sn) {
    int index = indexOf(address);
    int at = checkedOffset(index, address);
    ChunkMemory chunk = chunks[index];
    if (chunk.getLong(at + PmEntryDescriptor.SN_OFFSET) == PmEntryDescriptor.PENDING_SN) {
      pending[index]--;
    }
    chunk.putLong(at + PmEntryDescriptor.SN_OFFSET, sn);
    colors.record(index, chunk.getInt(at + PmEntryDescriptor.COLOR_OFFSET), sn);
    if (commitCount == commits.length) {
      commits = Arrays.copyOf(commits, commitCount * 2);
    }
    commits[commitCount++] = ((long) index << 32) | at;
  }

  void flush() {
    int rangeStart = flushedOffset;
    int rangeEnd = writeOffset;
    if (current >= 0 && rangeEnd > rangeStart) {
      chunks[current].flush(rangeStart, rangeEnd - rangeStart);
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
      chunks[chunk].flush(start, end - start);
    }
    commitCount = 0;
    flushedOffset = writeOffset;
    reclaimDrained();
  }

  // ---------------------------------------------------------------- reading

  /** True when the entry's chunk is live in this log (not freed, not tiered away). */
  boolean holds(long address) {
    long seq = chunkSequence(address);
    return (current >= 0 && seq == currentSequence) || indexBySequence.get(seq) >= 0;
  }

  /** True when a chunk with this sequence is live, also before recovery. */
  boolean holdsSequence(long chunkSequence) {
    return indexBySequence.get(chunkSequence) >= 0;
  }

  int payloadLength(long address) {
    int index = indexOf(address);
    int at = checkedOffset(index, address);
    return chunks[index].getInt(at + PmEntryDescriptor.PAYLOAD_LENGTH_OFFSET);
  }

  ByteBuf payload(long address) {
    int index = indexOf(address);
    int at = checkedOffset(index, address);
    ChunkMemory chunk = chunks[index];
    int length = chunk.getInt(at + PmEntryDescriptor.PAYLOAD_LENGTH_OFFSET);
    return chunk.readOnlyView(at + PmEntryDescriptor.PAYLOAD_OFFSET, length);
  }

  ByteBuf retainedPayload(long address) {
    int index = indexOf(address);
    int at = checkedOffset(index, address);
    ChunkMemory chunk = chunks[index];
    int length = chunk.getInt(at + PmEntryDescriptor.PAYLOAD_LENGTH_OFFSET);
    return chunk.retainedView(at + PmEntryDescriptor.PAYLOAD_OFFSET, length);
  }

  /**
   * Space not available for new entries: every chunk that is not free (the open one up to its write
   * position, freed ones until their retained views are released).
   */
  long usedBytes() {
    return current < 0
        ? (long) liveChunks * chunkSize
        : (long) (liveChunks - 1) * chunkSize + writeOffset;
  }

  int chunkSize() {
    return chunkSize;
  }

  int chunkCount() {
    return chunks.length;
  }

  long capacityBytes() {
    return (long) chunks.length * chunkSize;
  }

  /** The chunk index that holds {@code address}; for engine tests that fabricate torn states. */
  int chunkIndexOf(long address) {
    return indexOf(address);
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
      freeDeadChunks();
      reclaimDrained();
    }
  }

  private void freeDeadChunks() {
    for (int i = 0; i < chunks.length; i++) {
      if (state[i] == SEALED && pending[i] == 0 && colors.allTrimmed(i, trims)) {
        release(i);
      }
    }
  }

  // ---------------------------------------------------------------- tiering

  /**
   * Picks the oldest live chunks, in sequence order, for the tiering thread: as long as each is
   * sealed and has no pending entry, up to {@code maxBytes} of entries (at least one chunk). They
   * stay readable here until {@link #finishTiering}.
   *
   * @param out receives the chunk indexes
   * @return how many were picked, 0 when the oldest live chunk cannot be tiered yet
   */
  int beginTiering(long maxBytes, int[] out) {
    long[] keys = new long[liveChunks];
    int live = 0;
    for (int i = 0; i < chunks.length; i++) {
      if (state[i] == OPEN || state[i] == SEALED || state[i] == TIERING) {
        keys[live++] = (sequence[i] << 20) | i;
      }
    }
    Arrays.sort(keys, 0, live);
    int count = 0;
    long bytes = 0;
    for (int k = 0; k < live && count < out.length; k++) {
      int index = (int) (keys[k] & ((1 << 20) - 1));
      if (state[index] != SEALED || pending[index] > 0) {
        break;
      }
      long chunkBytes = end[index] - ENTRIES_OFFSET;
      if (count > 0 && bytes + chunkBytes > maxBytes) {
        break;
      }
      out[count++] = index;
      bytes += chunkBytes;
    }
    for (int k = 0; k < count; k++) {
      state[out[k]] = TIERING;
    }
    return count;
  }

  long sequenceOf(int chunkIndex) {
    return sequence[chunkIndex];
  }

  /** The chunk's memory: the tiering thread reads a tiering chunk through its readBuffer. */
  ChunkMemory memory(int chunkIndex) {
    return chunks[chunkIndex];
  }

  /** Where the entries of a sealed or tiering chunk end. */
  int entriesEnd(int chunkIndex) {
    return end[chunkIndex];
  }

  /**
   * Ends the tiering of chunks from {@link #beginTiering}: frees them when their entries are
   * durable in a segment, or makes them tierable again when the copy failed.
   */
  void finishTiering(int[] chunkIndexes, int count, boolean moved) {
    for (int k = 0; k < count; k++) {
      int index = chunkIndexes[k];
      if (state[index] != TIERING) {
        throw new IllegalStateException("chunk " + index + " is not being tiered");
      }
      if (moved) {
        release(index);
      } else {
        state[index] = SEALED;
      }
    }
    if (moved) {
      reclaimDrained();
    }
  }

  // ---------------------------------------------------------------- chunk life

  /** Takes a chunk out of the address map; it returns to the free list once drained. */
  private void release(int index) {
    indexBySequence.remove(sequence[index]);
    state[index] = DRAINING;
    draining.addInt(index);
  }

  /** Returns drained chunks to the free list, their sequence negated durably. */
  private void reclaimDrained() {
    for (int k = draining.size() - 1; k >= 0; k--) {
      int index = draining.getInt(k);
      if (chunks[index].hasRetainedViews()) {
        continue;
      }
      draining.fastUnorderedRemove(k);
      markFree(index);
    }
  }

  private void markFree(int index) {
    long freed = -Math.abs(sequence[index]);
    chunks[index].putLong(CHUNK_SEQUENCE_OFFSET, freed);
    chunks[index].flush(CHUNK_SEQUENCE_OFFSET, Long.BYTES);
    sequence[index] = freed;
    state[index] = FREE;
    liveChunks--;
    freeList.addInt(index);
  }

  private boolean openNextChunk() {
    reclaimDrained();
    if (freeList.isEmpty()) {
      return false;
    }
    if (nextChunkSequence > MAX_SEQUENCE) {
      throw new StorageException(
          "chunk sequences exhausted after " + MAX_SEQUENCE + " chunks: the log cannot grow");
    }
    int next = freeList.pollInt();
    if (current >= 0) {
      if (writeOffset > flushedOffset) {
        chunks[current].flush(flushedOffset, writeOffset - flushedOffset);
      }
      end[current] = writeOffset;
      state[current] = SEALED;
    }
    // Durable before the first entry: a chunk with a sequence <= 0 never holds live entries.
    long seq = nextChunkSequence++;
    ChunkMemory chunk = chunks[next];
    chunk.putLong(CHUNK_SEQUENCE_OFFSET, seq);
    chunk.flush(CHUNK_SEQUENCE_OFFSET, Long.BYTES);
    sequence[next] = seq;
    state[next] = OPEN;
    end[next] = ENTRIES_OFFSET;
    pending[next] = 0;
    colors.reset(next);
    indexBySequence.put(seq, next);
    liveChunks++;
    current = next;
    currentSequence = seq;
    writeOffset = ENTRIES_OFFSET;
    flushedOffset = ENTRIES_OFFSET;
    return true;
  }

  // ---------------------------------------------------------------- recovery

  void recover(LogStorage.EntryVisitor visitor) {
    recover(visitor, sequenceOfChunk -> false, 0);
  }

  /**
   * Replays the live entries in address order.
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
    int last = -1;
    for (int index : liveChunksInSequenceOrder()) {
      if (coveredBySegment.test(sequence[index])) {
        indexBySequence.remove(sequence[index]);
        markFree(index);
        continue;
      }
      int entriesEnd = replayChunk(index, visitor);
      eraseNonZero(chunks[index], entriesEnd, chunkSize);
      end[index] = entriesEnd;
      state[index] = SEALED;
      last = index;
    }
    if (last >= 0) {
      current = last;
      currentSequence = sequence[last];
      state[last] = OPEN;
      writeOffset = end[last];
    }
    flushedOffset = writeOffset;
    nextChunkSequence = Math.max(nextChunkSequence, sequenceFloor + 1);
    recovered = true;
    freeDeadChunks();
    reclaimDrained();
  }

  private int replayChunk(int index, LogStorage.EntryVisitor visitor) {
    ChunkMemory chunk = chunks[index];
    long seq = sequence[index];
    pending[index] = 0;
    colors.reset(index);
    int at = ENTRIES_OFFSET;
    while (at + PmEntryDescriptor.HEADER_LENGTH <= chunkSize) {
      int length = chunk.getInt(at + PmEntryDescriptor.PAYLOAD_LENGTH_OFFSET);
      if (length < 0 || length > chunkSize - at - PmEntryDescriptor.HEADER_LENGTH) {
        break;
      }
      if (computeCrc(chunk, seq, at, length) != chunk.getInt(at + PmEntryDescriptor.CRC_OFFSET)) {
        break;
      }
      int colorId = chunk.getInt(at + PmEntryDescriptor.COLOR_OFFSET);
      long sn = chunk.getLong(at + PmEntryDescriptor.SN_OFFSET);
      if (sn == PmEntryDescriptor.PENDING_SN) {
        pending[index]++;
      } else {
        colors.record(index, colorId, sn);
      }
      if (!trims.isTrimmed(colorId, sn)) {
        visitor.onEntry(
            address(seq, at),
            chunk.getInt(at + PmEntryDescriptor.SHARD_OFFSET),
            colorId,
            chunk.getLong(at + PmEntryDescriptor.TOKEN_SESSION_OFFSET),
            chunk.getLong(at + PmEntryDescriptor.TOKEN_SEQUENCE_OFFSET),
            sn,
            length);
      }
      at += (int) PmEntryDescriptor.entryLength(length);
    }
    return at;
  }

  private int[] liveChunksInSequenceOrder() {
    long[] keys = new long[chunks.length];
    int live = 0;
    for (int i = 0; i < chunks.length; i++) {
      if (sequence[i] > 0) {
        // Sequence in the high bits, index in the low 20 (at most 2^20 chunks, see engines).
        keys[live++] = (sequence[i] << 20) | i;
      }
    }
    Arrays.sort(keys, 0, live);
    int[] order = new int[live];
    for (int i = 0; i < live; i++) {
      order[i] = (int) (keys[i] & ((1 << 20) - 1));
    }
    return order;
  }

  // ---------------------------------------------------------------- helpers

  private int computeCrc(ChunkMemory chunk, long chunkSequence, int at, int payloadLength) {
    crc.reset();
    crcSeed.putLong(0, chunkSequence);
    crc.update(crcSeed.array(), 0, PmEntryDescriptor.CRC_SEED_LENGTH);
    chunk.updateCrc(
        crc, at + PmEntryDescriptor.CRC_RANGE1_OFFSET, PmEntryDescriptor.CRC_RANGE1_LENGTH);
    chunk.updateCrc(
        crc, at + PmEntryDescriptor.CRC_RANGE2_OFFSET, PmEntryDescriptor.CRC_RANGE2_LENGTH);
    chunk.updateCrc(crc, at + PmEntryDescriptor.PAYLOAD_OFFSET, payloadLength);
    return (int) crc.getValue();
  }

  private int indexOf(long address) {
    long seq = chunkSequence(address);
    if (current >= 0 && seq == currentSequence) {
      return current;
    }
    long index = indexBySequence.get(seq);
    if (index < 0) {
      throw new IllegalArgumentException(
          "no live chunk holds address 0x"
              + Long.toHexString(address)
              + " (never written, trimmed or moved to the SSD tier)");
    }
    return (int) index;
  }

  private int checkedOffset(int index, long address) {
    int at = offset(address);
    int limit = index == current ? writeOffset : end[index];
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

  /**
   * Zeroes and flushes [from, to) up to its last non-zero word. It reads first because the range is
   * usually clean already, and reading is much cheaper than writing and flushing PM or pages. Both
   * bounds are multiples of 8 (entries are 8-byte aligned, chunk sizes multiples of 4 KiB).
   */
  static void eraseNonZero(ChunkMemory chunk, int from, int to) {
    int lastDirtyEnd = from;
    for (int at = from; at < to; at += Long.BYTES) {
      if (chunk.getLong(at) != 0) {
        lastDirtyEnd = at + Long.BYTES;
      }
    }
    if (lastDirtyEnd > from) {
      chunk.zero(from, lastDirtyEnd - from);
      chunk.flush(from, lastDirtyEnd - from);
    }
  }

  private static long validateHeader(ChunkMemory chunk, int index, int chunkSize) {
    long magic = chunk.getLong(MAGIC_OFFSET);
    if (magic != ChunkHeaderDescriptor.MAGIC) {
      throw new StorageException(
          "chunk " + index + " is not a FlexLog chunk (magic 0x" + Long.toHexString(magic) + ")");
    }
    int version = chunk.getInt(VERSION_OFFSET);
    if (version != ChunkHeaderDescriptor.VERSION) {
      throw new StorageException(
          "chunk "
              + index
              + " has layout version "
              + version
              + ", this build reads "
              + ChunkHeaderDescriptor.VERSION
              + " (logs of older builds cannot be opened: move the data directory aside)");
    }
    long size = chunk.getLong(CHUNK_SIZE_OFFSET);
    int storedIndex = chunk.getInt(CHUNK_INDEX_OFFSET);
    if (size != chunkSize || storedIndex != index) {
      throw new StorageException(
          "chunk "
              + index
              + " header says index "
              + storedIndex
              + " and size "
              + size
              + ", expected index "
              + index
              + " and size "
              + chunkSize);
    }
    long seq = chunk.getLong(CHUNK_SEQUENCE_OFFSET);
    if (Math.abs(seq) > MAX_SEQUENCE) {
      throw new StorageException("chunk " + index + " has an impossible sequence " + seq);
    }
    return seq;
  }
}
