package io.flexlog.replica.storage;

/**
 * Layout of the llpl heap's root block: the table of chunk handles. Little-endian (the byte order
 * of llpl's accessors on x86-64 and aarch64).
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
 *  |                    reserved, zero (8 bytes)                   |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |        llpl handle of chunk 0 (int64), chunk 1, ...           |
 * </pre>
 *
 * <p>The table is written and flushed completely before it becomes the heap root, so a heap whose
 * root is set always has a complete table.
 */
public final class ChunkTableDescriptor {
  public static final int MAGIC_OFFSET = 0;
  public static final int VERSION_OFFSET = 8;
  public static final int CHUNK_COUNT_OFFSET = 12;
  public static final int CHUNK_SIZE_OFFSET = 16;
  public static final int HANDLES_OFFSET = 32;
  public static final int HANDLE_LENGTH = 8;

  public static final long MAGIC = ChunkHeaderDescriptor.magic("FLXLTABL");
  public static final int VERSION = 1;

  private ChunkTableDescriptor() {}

  public static long handleOffset(int chunkIndex) {
    return HANDLES_OFFSET + (long) chunkIndex * HANDLE_LENGTH;
  }

  public static long tableLength(int chunkCount) {
    return handleOffset(chunkCount);
  }
}
