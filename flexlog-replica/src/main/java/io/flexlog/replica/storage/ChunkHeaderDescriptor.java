package io.flexlog.replica.storage;

import java.nio.charset.StandardCharsets;

/**
 * Layout of the header at the start of every chunk (both engines); entries ({@link
 * PmEntryDescriptor}) follow at {@link #ENTRIES_OFFSET}. Little-endian.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                magic "FLXLCHNK" (8 ASCII bytes)               |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                         version (int32)                       |
 *  +---------------------------------------------------------------+
 *  |                       chunk index (int32)                     |
 *  +---------------------------------------------------------------+
 *  |                       chunk size (int64)                      |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |             chunk sequence (int64, 0 = never written)         |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     reserved, zero (32 bytes)                 |
 * </pre>
 *
 * <p>The chunk sequence is assigned when the writer opens the chunk and is made durable before the
 * first entry is written into it, so recovery can order chunks and knows that a chunk with sequence
 * 0 holds no entries (it is all zeros after the header). A chunk that is freed later (trim or
 * tiering) must be zeroed before its sequence is reset to 0.
 */
public final class ChunkHeaderDescriptor {
  public static final int MAGIC_OFFSET = 0;
  public static final int VERSION_OFFSET = 8;
  public static final int CHUNK_INDEX_OFFSET = 12;
  public static final int CHUNK_SIZE_OFFSET = 16;
  public static final int CHUNK_SEQUENCE_OFFSET = 24;
  public static final int HEADER_LENGTH = 64;

  /** Where the first entry of a chunk starts. */
  public static final int ENTRIES_OFFSET = HEADER_LENGTH;

  /** "FLXLCHNK" read as a little-endian int64. */
  public static final long MAGIC = magic("FLXLCHNK");

  public static final int VERSION = 1;

  /** Smallest chunk: a header and one entry with a small payload. */
  public static final int MIN_CHUNK_SIZE = 4096;

  /** Largest chunk: offsets in entry addresses and buffer views are ints. */
  public static final int MAX_CHUNK_SIZE = 1 << 30;

  private ChunkHeaderDescriptor() {}

  /** Largest payload that fits in an empty chunk of {@code chunkSize} bytes. */
  public static int maxPayloadLength(int chunkSize) {
    return chunkSize - ENTRIES_OFFSET - PmEntryDescriptor.HEADER_LENGTH;
  }

  static long magic(String eightAsciiChars) {
    byte[] bytes = eightAsciiChars.getBytes(StandardCharsets.US_ASCII);
    long value = 0;
    for (int i = 7; i >= 0; i--) {
      value = (value << 8) | (bytes[i] & 0xFF);
    }
    return value;
  }
}
