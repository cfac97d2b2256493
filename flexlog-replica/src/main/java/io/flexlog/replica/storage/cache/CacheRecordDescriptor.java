package io.flexlog.replica.storage.cache;

/**
 * Layout of one record inside a cache block ({@link RecordCache}). Records are packed one after the
 * other from the block start, 8-byte aligned. Little-endian. Off-heap and never persisted.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                   storage address (int64)                     |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     payload length (int32)                    |
 *  +---------------------------------------------------------------+
 *  |                        flags (int32)                          |
 *  +---------------------------------------------------------------+
 *  |                 payload ... zero padding to 8 bytes           |
 * </pre>
 *
 * <p>The address lets eviction walk a block and drop exactly the hash-map entries that point into
 * it; flag 1 marks a record indexed in the hash map (put after a read) rather than in its block's
 * run of appended records.
 */
final class CacheRecordDescriptor {
  public static final int ADDRESS_OFFSET = 0;
  public static final int LENGTH_OFFSET = 8;
  public static final int FLAGS_OFFSET = 12;
  public static final int HEADER_LENGTH = 16;
  public static final int PAYLOAD_OFFSET = HEADER_LENGTH;
  public static final int ALIGNMENT = 8;

  private CacheRecordDescriptor() {}

  /** Bytes a record with this payload takes in a block. */
  public static int recordLength(int payloadLength) {
    return (HEADER_LENGTH + payloadLength + ALIGNMENT - 1) & -ALIGNMENT;
  }
}
