package io.flexlog.replica.storage.pm;

import io.flexlog.replica.storage.chunk.ChunkHeaderDescriptor;
import io.flexlog.replica.storage.chunk.TrimTableDescriptor;

/**
 * Layout of the llpl heap's root block: the table of chunk handles, followed by the trim table
 * ({@link TrimTableDescriptor}). Little-endian (the byte order of llpl's accessors on x86-64 and
 * aarch64).
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                magic "FLXLTABL" (8 ASCII bytes)               |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                         version (int32)                       |
 *  +---------------------------------------------------------------+
 *  |                       chunk count (int32)                     |
 *  +---------------------------------------------------------------+
 *  |          chunk size as configured (int64, footprint)          |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |        offset of the trim table in this block (int64)         |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |        llpl handle of chunk 0 (int64), chunk 1, ...           |
 *  +---------------------------------------------------------------+
 *  |     trim table at the offset above (64-byte aligned, after     |
 *  |     the last handle): see TrimTableDescriptor                  |
 * </pre>
 *
 * <p>The table and the trim table are written and flushed completely before the block becomes the
 * heap root, so a heap whose root is set always has both.
 */
final class ChunkTableDescriptor {
  public static final int MAGIC_OFFSET = 0;
  public static final int VERSION_OFFSET = 8;
  public static final int CHUNK_COUNT_OFFSET = 12;
  public static final int CHUNK_SIZE_OFFSET = 16;
  public static final int TRIM_TABLE_OFFSET_OFFSET = 24;
  public static final int HANDLES_OFFSET = 32;
  public static final int HANDLE_LENGTH = 8;

  public static final long MAGIC = ChunkHeaderDescriptor.magic("FLXLTABL");

  /** Version 2 added the trim table. */
  public static final int VERSION = 2;

  private ChunkTableDescriptor() {}

  public static long handleOffset(int chunkIndex) {
    return HANDLES_OFFSET + (long) chunkIndex * HANDLE_LENGTH;
  }

  /** Where the trim table starts for a table of {@code chunkCount} handles. */
  public static long trimTableOffset(int chunkCount) {
    return (handleOffset(chunkCount) + 63) & -64L;
  }

  /** Bytes of the root block: handles and the trim table. */
  public static long blockLength(int chunkCount) {
    return trimTableOffset(chunkCount) + TrimTableDescriptor.LENGTH;
  }
}
