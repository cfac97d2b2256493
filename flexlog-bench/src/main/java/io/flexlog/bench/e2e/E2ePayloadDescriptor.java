package io.flexlog.bench.e2e;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The payload of every record {@code bench e2e} appends: who sent it, when, and to which run it
 * belongs, followed by filler up to {@code --record-bytes}. Big-endian.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |                   magic 0x464C4532 ("FLE2")                   |  0
 * +---------------+---------------+-------------------------------+
 * |  version (1)  |     kind      |         color index           |  4
 * +---------------+---------------+-------------------------------+
 * |                          run id (64)                          |  8
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                        producer (32)                          | 16
 * +---------------------------------------------------------------+
 * |                   flags (32), bit 0: measured                 | 20
 * +---------------------------------------------------------------+
 * |               sequence number within the producer (64)        | 24
 * |                                                               |
 * +---------------------------------------------------------------+
 * |             send time, the producer's System.nanoTime (64)    | 32
 * |                                                               |
 * +---------------------------------------------------------------+
 * |                 filler (zeros) up to the record size          | 40
 * </pre>
 *
 * <p>Kinds: {@link #KIND_DATA} is a measured or warm-up append; {@link #KIND_START} and {@link
 * #KIND_END} are the markers appended before the producers start and after they drained, which
 * position the subscriptions and tell them that every acknowledged record has been delivered. The
 * run id tells this run's records from any other writer's in the same color. Producer and sequence
 * number identify an append, so a subscriber's record can be matched with the SN its append was
 * acknowledged with. Readers and writers allocate nothing.
 */
final class E2ePayloadDescriptor {
  static final int MAGIC = 0x464C4532;
  static final byte VERSION = 1;

  static final byte KIND_DATA = 0;
  static final byte KIND_START = 1;
  static final byte KIND_END = 2;

  static final int FLAG_MEASURED = 1;

  static final int MAGIC_OFFSET = 0;
  static final int VERSION_OFFSET = 4;
  static final int KIND_OFFSET = 5;
  static final int COLOR_INDEX_OFFSET = 6;
  static final int RUN_ID_OFFSET = 8;
  static final int PRODUCER_OFFSET = 16;
  static final int FLAGS_OFFSET = 20;
  static final int SEQUENCE_OFFSET = 24;
  static final int SEND_NANOS_OFFSET = 32;

  /** The smallest record {@code bench e2e} can send. */
  static final int HEADER_BYTES = 40;

  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle SHORT =
      MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private E2ePayloadDescriptor() {}

  /** Writes the fields that stay the same for every append of one producer to one color. */
  static void writeFixed(byte[] p, byte kind, int colorIndex, long runId, int producer) {
    INT.set(p, MAGIC_OFFSET, MAGIC);
    p[VERSION_OFFSET] = VERSION;
    p[KIND_OFFSET] = kind;
    SHORT.set(p, COLOR_INDEX_OFFSET, (short) colorIndex);
    LONG.set(p, RUN_ID_OFFSET, runId);
    INT.set(p, PRODUCER_OFFSET, producer);
  }

  /** Writes the fields that change with every append. */
  static void writeVariable(byte[] p, boolean measured, long sequence, long sendNanos) {
    INT.set(p, FLAGS_OFFSET, measured ? FLAG_MEASURED : 0);
    LONG.set(p, SEQUENCE_OFFSET, sequence);
    LONG.set(p, SEND_NANOS_OFFSET, sendNanos);
  }

  /** Whether {@code p} is a record of this run and color (any other writer's records are not). */
  static boolean belongsTo(byte[] p, long runId, int colorIndex) {
    return p.length >= HEADER_BYTES
        && (int) INT.get(p, MAGIC_OFFSET) == MAGIC
        && p[VERSION_OFFSET] == VERSION
        && (long) LONG.get(p, RUN_ID_OFFSET) == runId
        && (short) SHORT.get(p, COLOR_INDEX_OFFSET) == (short) colorIndex;
  }

  static byte kind(byte[] p) {
    return p[KIND_OFFSET];
  }

  static int producer(byte[] p) {
    return (int) INT.get(p, PRODUCER_OFFSET);
  }

  static boolean measured(byte[] p) {
    return ((int) INT.get(p, FLAGS_OFFSET) & FLAG_MEASURED) != 0;
  }

  static long sequence(byte[] p) {
    return (long) LONG.get(p, SEQUENCE_OFFSET);
  }

  static long sendNanos(byte[] p) {
    return (long) LONG.get(p, SEND_NANOS_OFFSET);
  }
}
