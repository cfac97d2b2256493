package io.flexlog.replica.storage.chunk;

import static io.flexlog.replica.storage.chunk.ChunkHeaderDescriptor.CHUNK_INDEX_OFFSET;
import static io.flexlog.replica.storage.chunk.ChunkHeaderDescriptor.CHUNK_SEQUENCE_OFFSET;
import static io.flexlog.replica.storage.chunk.ChunkHeaderDescriptor.CHUNK_SIZE_OFFSET;
import static io.flexlog.replica.storage.chunk.ChunkHeaderDescriptor.MAGIC_OFFSET;
import static io.flexlog.replica.storage.chunk.ChunkHeaderDescriptor.VERSION_OFFSET;

import io.flexlog.replica.storage.StorageException;

/**
 * Formats and validates chunk headers ({@link ChunkHeaderDescriptor}), and erases stale bytes in a
 * chunk. Stateless.
 */
final class ChunkHeaders {
  /** The largest chunk sequence: addresses must stay positive longs. */
  static final long MAX_SEQUENCE = Integer.MAX_VALUE;

  private ChunkHeaders() {}

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

  /**
   * Checks a chunk's header against this build's layout and the log's chunk size.
   *
   * @return the chunk's sequence: {@code > 0} live, {@code 0} never used, {@code < 0} freed
   * @throws StorageException when the header is not a chunk header of this layout and size
   */
  static long validate(ChunkMemory chunk, int index, int chunkSize) {
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
