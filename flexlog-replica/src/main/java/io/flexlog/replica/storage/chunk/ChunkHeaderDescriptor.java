package io.flexlog.replica.storage.chunk;

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
 *  |   chunk sequence (int64: > 0 live, 0 never used, < 0 freed)   |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     reserved, zero (32 bytes)                 |
 * </pre>
 *
 * <p>The chunk sequence is assigned when the writer opens the chunk (one more than any sequence
 * this log ever used) and is made durable before the first entry is written into it, so recovery
 * can order chunks and knows that a chunk with a sequence {@code <= 0} holds no live entries. The
 * sequence is the high half of every entry address in the chunk ({@code sequence << 32 | offset}),
 * so addresses only ever increase and are never reused.
 *
 * <p>A chunk whose entries are all dead (trimmed) or moved to the SSD tier is freed by storing the
 * negated sequence, one aligned 8-byte store: the chunk is free, and recovery still learns the
 * highest sequence ever used. A freed chunk is not zeroed: when it is reused, its stale entries
 * fail their CRC, which covers the chunk sequence ({@link PmEntryDescriptor}).
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

  public static final int VERSION = 2;

  /** Smallest chunk: a header and one entry with a small payload. */
  public static final int MIN_CHUNK_SIZE = 4096;

  /** Largest chunk: offsets in entry addresses and buffer views are ints. */
  public static final int MAX_CHUNK_SIZE = 1 << 30;

  private ChunkHeaderDescriptor() {}

  /** Largest payload that fits in an empty chunk of {@code chunkSize} bytes. */
  public static int maxPayloadLength(int chunkSize) {
    return chunkSize - ENTRIES_OFFSET - PmEntryDescriptor.HEADER_LENGTH;
  }

  /**
   * The little-endian long whose bytes are the 8 ASCII characters in order: how every FlexLog
   * layout (chunks, trim table, llpl chunk table) stores its magic.
   */
  public static long magic(String eightAsciiChars) {
    byte[] bytes = eightAsciiChars.getBytes(StandardCharsets.US_ASCII);
    long value = 0;
    for (int i = 7; i >= 0; i--) {
      value = (value << 8) | (bytes[i] & 0xFF);
    }
    return value;
  }
}
