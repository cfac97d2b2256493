package io.flexlog.replica.storage;

import static io.flexlog.replica.storage.ChunkHeaderDescriptor.CHUNK_INDEX_OFFSET;
import static io.flexlog.replica.storage.ChunkHeaderDescriptor.CHUNK_SEQUENCE_OFFSET;
import static io.flexlog.replica.storage.ChunkHeaderDescriptor.CHUNK_SIZE_OFFSET;
import static io.flexlog.replica.storage.ChunkHeaderDescriptor.ENTRIES_OFFSET;
import static io.flexlog.replica.storage.ChunkHeaderDescriptor.MAGIC_OFFSET;
import static io.flexlog.replica.storage.ChunkHeaderDescriptor.VERSION_OFFSET;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The log logic both engines share: entry layout ({@link PmEntryDescriptor}), chunk order ({@link
 * ChunkHeaderDescriptor}), append, commit, flush coalescing and recovery, over one {@link
 * ChunkMemory} per chunk. Engines only provide the memory and how a range is made durable.
 *
 * <p>Entries are appended one after the other into the open chunk; when an entry does not fit, the
 * next free chunk (lowest index with sequence 0) is opened with the next chunk sequence. Opening a
 * chunk flushes what is left of the previous one and then makes the new chunk's sequence durable
 * before any entry is written into it, so after any crash a chunk with sequence 0 is empty.
 *
 * <p>Recovery reads chunks in sequence order and, inside a chunk, entries in order up to the first
 * one that fails its length or CRC check. Whatever follows that point in the chunk is erased
 * (zeroed and flushed), so a stale entry that happens to pass its CRC can never reappear after the
 * writer overwrites the torn one. A torn entry ends only its own chunk: later chunks are still
 * read. After a process crash only the last chunk can have a torn entry; after a machine crash in
 * {@code fsync}/{@code pmem} mode unflushed writes may reach the media in any order, so an earlier
 * chunk can lose unflushed entries while a later one keeps some. Those entries were never
 * acknowledged, each is self-validating by CRC, and the replica treats recovered pending entries as
 * new requests, so they are kept as part of the log rather than rejected. The writer continues
 * after the last valid entry of the chunk with the highest sequence.
 *
 * <p>Threading: one owner thread, like {@link LogStorage}. Steady state allocates nothing except
 * when the array of pending SN commits has to grow (amortised, bounded by the batch size).
 */
final class ChunkLog {
  private final ChunkMemory[] chunks;
  private final int chunkSize;
  private final int coalesceGapBytes;
  private final CRC32C crc = new CRC32C();

  private final long[] chunkSequence;
  private long nextChunkSequence = 1;
  private int sealedChunks;
  private int current = -1;
  private int writeOffset;
  private int flushedOffset;
  private boolean recovered;

  // Addresses of entries committed since the last flush; their SN words are flushed at flush().
  private long[] commits = new long[256];
  private int commitCount;

  /**
   * @param chunks the chunks, every one formatted ({@link #format})
   * @param coalesceGapBytes SN words closer than this are flushed as one range: a cache-line flush
   *     engine wants a small gap, a page-granular msync engine a page
   * @param fresh true when the chunks were just formatted: no recovery is needed before appending
   */
  ChunkLog(ChunkMemory[] chunks, int chunkSize, int coalesceGapBytes, boolean fresh) {
    this.chunks = chunks;
    this.chunkSize = chunkSize;
    this.coalesceGapBytes = coalesceGapBytes;
    this.chunkSequence = new long[chunks.length];
    for (int i = 0; i < chunks.length; i++) {
      chunkSequence[i] = validateHeader(chunks[i], i, chunkSize);
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

  static long address(int chunkIndex, int offset) {
    return ((long) chunkIndex << 32) | offset;
  }

  static int chunkIndex(long address) {
    return (int) (address >>> 32);
  }

  static int offset(long address) {
    return (int) address;
  }

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
    chunk.putInt(at + PmEntryDescriptor.CRC_OFFSET, computeCrc(chunk, at, length));
    writeOffset = at + (int) entryLength;
    return address(current, at);
  }

  void commit(long address, long sn) {
    int at = checkedOffset(address);
    chunks[chunkIndex(address)].putLong(at + PmEntryDescriptor.SN_OFFSET, sn);
    if (commitCount == commits.length) {
      commits = Arrays.copyOf(commits, commitCount * 2);
    }
    commits[commitCount++] = address;
  }

  void flush() {
    int rangeStart = flushedOffset;
    int rangeEnd = writeOffset;
    if (current >= 0 && rangeEnd > rangeStart) {
      chunks[current].flush(rangeStart, rangeEnd - rangeStart);
    }
    int i = 0;
    while (i < commitCount) {
      long address = commits[i];
      int chunk = chunkIndex(address);
      int start = offset(address) + PmEntryDescriptor.SN_OFFSET;
      int end = start + Long.BYTES;
      i++;
      if (chunk == current && start >= rangeStart && end <= rangeEnd) {
        continue; // flushed with the appended range above
      }
      // Commits mostly arrive in append order: merge ascending neighbours into one flush.
      while (i < commitCount && chunkIndex(commits[i]) == chunk) {
        int nextStart = offset(commits[i]) + PmEntryDescriptor.SN_OFFSET;
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
  }

  int payloadLength(long address) {
    int at = checkedOffset(address);
    return chunks[chunkIndex(address)].getInt(at + PmEntryDescriptor.PAYLOAD_LENGTH_OFFSET);
  }

  ByteBuf payload(long address) {
    int at = checkedOffset(address);
    ChunkMemory chunk = chunks[chunkIndex(address)];
    int length = chunk.getInt(at + PmEntryDescriptor.PAYLOAD_LENGTH_OFFSET);
    return chunk.readOnlyView(at + PmEntryDescriptor.PAYLOAD_OFFSET, length);
  }

  /** Space not available for new entries: every opened chunk up to the write position. */
  long usedBytes() {
    return (long) sealedChunks * chunkSize + (current < 0 ? 0 : writeOffset);
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

  void recover(LogStorage.EntryVisitor visitor) {
    if (recovered && current >= 0) {
      throw new IllegalStateException("recover() must be called once, before the first append");
    }
    int[] order = chunksInSequenceOrder();
    for (int index : order) {
      int end = replayChunk(index, visitor);
      eraseNonZero(chunks[index], end, chunkSize);
      current = index;
      writeOffset = end;
      nextChunkSequence = chunkSequence[index] + 1;
    }
    sealedChunks = Math.max(0, order.length - 1);
    flushedOffset = writeOffset;
    recovered = true;
  }

  private int replayChunk(int index, LogStorage.EntryVisitor visitor) {
    ChunkMemory chunk = chunks[index];
    int at = ENTRIES_OFFSET;
    while (at + PmEntryDescriptor.HEADER_LENGTH <= chunkSize) {
      int length = chunk.getInt(at + PmEntryDescriptor.PAYLOAD_LENGTH_OFFSET);
      if (length < 0 || length > chunkSize - at - PmEntryDescriptor.HEADER_LENGTH) {
        break;
      }
      if (computeCrc(chunk, at, length) != chunk.getInt(at + PmEntryDescriptor.CRC_OFFSET)) {
        break;
      }
      visitor.onEntry(
          address(index, at),
          chunk.getInt(at + PmEntryDescriptor.SHARD_OFFSET),
          chunk.getInt(at + PmEntryDescriptor.COLOR_OFFSET),
          chunk.getLong(at + PmEntryDescriptor.TOKEN_SESSION_OFFSET),
          chunk.getLong(at + PmEntryDescriptor.TOKEN_SEQUENCE_OFFSET),
          chunk.getLong(at + PmEntryDescriptor.SN_OFFSET),
          length);
      at += (int) PmEntryDescriptor.entryLength(length);
    }
    return at;
  }

  private int[] chunksInSequenceOrder() {
    long[] keys = new long[chunks.length];
    int opened = 0;
    for (int i = 0; i < chunks.length; i++) {
      if (chunkSequence[i] != 0) {
        // Sequence in the high bits, index in the low 20 (at most 2^20 chunks, see engines).
        keys[opened++] = (chunkSequence[i] << 20) | i;
      }
    }
    Arrays.sort(keys, 0, opened);
    int[] order = new int[opened];
    for (int i = 0; i < opened; i++) {
      order[i] = (int) (keys[i] & ((1 << 20) - 1));
    }
    return order;
  }

  private boolean openNextChunk() {
    int next = -1;
    for (int i = 0; i < chunks.length; i++) {
      if (chunkSequence[i] == 0) {
        next = i;
        break;
      }
    }
    if (next < 0) {
      return false;
    }
    if (current >= 0) {
      if (writeOffset > flushedOffset) {
        chunks[current].flush(flushedOffset, writeOffset - flushedOffset);
      }
      sealedChunks++;
    }
    // Durable before the first entry: a chunk with sequence 0 never holds entries.
    ChunkMemory chunk = chunks[next];
    chunk.putLong(CHUNK_SEQUENCE_OFFSET, nextChunkSequence);
    chunk.flush(CHUNK_SEQUENCE_OFFSET, Long.BYTES);
    chunkSequence[next] = nextChunkSequence++;
    current = next;
    writeOffset = ENTRIES_OFFSET;
    flushedOffset = ENTRIES_OFFSET;
    return true;
  }

  private int computeCrc(ChunkMemory chunk, int at, int payloadLength) {
    crc.reset();
    chunk.updateCrc(
        crc, at + PmEntryDescriptor.CRC_RANGE1_OFFSET, PmEntryDescriptor.CRC_RANGE1_LENGTH);
    chunk.updateCrc(
        crc, at + PmEntryDescriptor.CRC_RANGE2_OFFSET, PmEntryDescriptor.CRC_RANGE2_LENGTH);
    chunk.updateCrc(crc, at + PmEntryDescriptor.PAYLOAD_OFFSET, payloadLength);
    return (int) crc.getValue();
  }

  private int checkedOffset(long address) {
    int index = chunkIndex(address);
    int at = offset(address);
    if (index < 0
        || index >= chunks.length
        || at < ENTRIES_OFFSET
        || at > chunkSize - PmEntryDescriptor.HEADER_LENGTH
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
              + ChunkHeaderDescriptor.VERSION);
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
    return chunk.getLong(CHUNK_SEQUENCE_OFFSET);
  }
}
