package io.flexlog.bench.storage;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The bytes of every benchmark record, so that a read can be checked against what was written.
 * Record {@code key} is a fixed pseudo-random body of {@link #recordBytes()} bytes whose first 8
 * bytes are replaced by the key (little-endian). A key names one record of one thread: {@code
 * thread << 40 | recordNumber}, see {@link #key}.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                      key (int64, little-endian)               |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |           body: the run's fixed pseudo-random bytes ...       |
 * </pre>
 *
 * <p>Immutable and safe to share between threads; the buffers passed in belong to the caller.
 */
public final class RecordPattern {
  /** Offset of the key stamp in every record. */
  public static final int KEY_OFFSET = 0;

  /** Smallest record: the key stamp. */
  public static final int MIN_RECORD_BYTES = Long.BYTES;

  /** Bits of a key that number records within one thread. */
  static final int RECORD_NUMBER_BITS = 40;

  private static final long SEED = 0x5702_A6EL;

  private final byte[] body;

  public RecordPattern(int recordBytes) {
    if (recordBytes < MIN_RECORD_BYTES) {
      throw new IllegalArgumentException(
          "records must be at least " + MIN_RECORD_BYTES + " bytes, got " + recordBytes);
    }
    this.body = new byte[recordBytes];
    new SplittableRandom(SEED).nextBytes(body);
  }

  /** The key of record {@code recordNumber} of thread {@code thread}. */
  public static long key(int thread, long recordNumber) {
    if (thread < 0 || recordNumber < 0 || recordNumber >= 1L << RECORD_NUMBER_BITS) {
      throw new IllegalArgumentException(
          "no key for thread " + thread + ", record " + recordNumber);
    }
    return ((long) thread << RECORD_NUMBER_BITS) | recordNumber;
  }

  public int recordBytes() {
    return body.length;
  }

  /** A new array holding record {@code key}. */
  public byte[] newRecord(long key) {
    byte[] record = body.clone();
    stamp(record, key);
    return record;
  }

  /** Writes the body once into {@code record} at its writer index; then {@link #stamp} per key. */
  public void fill(ByteBuf record) {
    record.writeBytes(body);
  }

  /** Writes the body once into {@code record} from position 0; then {@link #stamp} per key. */
  public void fill(ByteBuffer record) {
    record.clear();
    record.put(body).flip();
  }

  /** Turns a filled record (any key) into record {@code key}. */
  public static void stamp(byte[] record, long key) {
    for (int i = 0; i < Long.BYTES; i++) {
      record[KEY_OFFSET + i] = (byte) (key >>> (8 * i));
    }
  }

  /** Turns a filled record at the buffer's reader index into record {@code key}. */
  public static void stamp(ByteBuf record, long key) {
    record.setLongLE(record.readerIndex() + KEY_OFFSET, key);
  }

  /** Turns a filled record at position 0 into record {@code key}. */
  public static void stamp(ByteBuffer record, long key) {
    record.putLong(
        KEY_OFFSET, record.order() == ByteOrder.LITTLE_ENDIAN ? key : Long.reverseBytes(key));
  }

  /** The key stamped into the first 8 bytes of {@code record}. */
  public static long stampedKey(byte[] record) {
    long key = 0;
    for (int i = Long.BYTES - 1; i >= 0; i--) {
      key = (key << 8) | (record[KEY_OFFSET + i] & 0xFF);
    }
    return key;
  }

  /** Whether {@code record[0, length)} is exactly record {@code key}, every byte compared. */
  public boolean matches(byte[] record, int length, long key) {
    return length == body.length
        && stampedKey(record) == key
        && Arrays.equals(record, Long.BYTES, length, body, Long.BYTES, body.length);
  }
}
