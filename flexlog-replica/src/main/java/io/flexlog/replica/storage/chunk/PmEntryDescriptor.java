package io.flexlog.replica.storage.chunk;

/**
 * Layout of one log entry inside a chunk (both engines). All integers are little-endian, the native
 * order of the machines FlexLog runs on, so PM stores are plain aligned CPU stores.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                     payload length (int32)                    |
 *  +---------------------------------------------------------------+
 *  |                        CRC32C (int32)                         |
 *  +---------------------------------------------------------------+
 *  |                    token: session id (int64)                  |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                    token: sequence (int64)                    |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                        color id (int32)                       |
 *  +---------------------------------------------------------------+
 *  |                        shard id (int32)                       |
 *  +---------------------------------------------------------------+
 *  |              SN (int64, 0 = pending, 8-byte aligned)          |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                 payload ... zero padding to 8 bytes           |
 * </pre>
 *
 * <p>Entries start 8-byte aligned, so the SN word is 8-byte aligned: the commit is one aligned
 * store that cannot tear, written and flushed after the entry itself. The CRC32C is computed over,
 * in this order: the chunk's sequence ({@link ChunkHeaderDescriptor}, 8 bytes little-endian, not
 * stored in the entry), the length, the token, color and shard, and the payload; not over the SN,
 * which changes after the CRC is written. Seeding with the chunk sequence makes the entries of a
 * chunk's previous life fail their CRC once the chunk is reused under a new sequence, so a reused
 * chunk needs no zeroing. A zeroed header never passes the CRC, so the first all-zero header is
 * where a chunk's entries end, and a zero payload length is a legal, empty entry.
 */
public final class PmEntryDescriptor {
  public static final int PAYLOAD_LENGTH_OFFSET = 0;
  public static final int CRC_OFFSET = 4;
  public static final int TOKEN_SESSION_OFFSET = 8;
  public static final int TOKEN_SEQUENCE_OFFSET = 16;
  public static final int COLOR_OFFSET = 24;
  public static final int SHARD_OFFSET = 28;
  public static final int SN_OFFSET = 32;
  public static final int HEADER_LENGTH = 40;
  public static final int PAYLOAD_OFFSET = HEADER_LENGTH;

  /** Entries start at multiples of this many bytes from the chunk start. */
  public static final int ALIGNMENT = 8;

  /** Bytes of the chunk sequence fed to the CRC before the entry's own bytes. */
  public static final int CRC_SEED_LENGTH = 8;

  /** First CRC-covered range of the entry: the payload length. */
  public static final int CRC_RANGE1_OFFSET = PAYLOAD_LENGTH_OFFSET;

  public static final int CRC_RANGE1_LENGTH = 4;

  /** Second CRC-covered range: token, color and shard. */
  public static final int CRC_RANGE2_OFFSET = TOKEN_SESSION_OFFSET;

  public static final int CRC_RANGE2_LENGTH = SN_OFFSET - TOKEN_SESSION_OFFSET;

  /** The SN value of an entry that has no SN yet. */
  public static final long PENDING_SN = 0L;

  private PmEntryDescriptor() {}

  /** Bytes the entry occupies in a chunk, header and padding included. */
  public static long entryLength(int payloadLength) {
    return align((long) HEADER_LENGTH + payloadLength);
  }

  public static long align(long length) {
    return (length + ALIGNMENT - 1) & -ALIGNMENT;
  }
}
