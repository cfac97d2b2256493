package io.flexlog.core.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * SUBSCRIBE_RECORDS body: a batch of a subscription's records, in increasing SN order, and the
 * subscription's progress after it. The request id is the subscription id.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                          color id                             |
 *  +---------------------------------------------------------------+
 *  |                          shard id                             |
 *  +---------------------------------------------------------------+
 *  |                        progress sn                            |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                       record count n                          |
 *  +---------------------------------------------------------------+
 *  |             n x { sn (8), payload length (4) }                |
 *  +---------------------------------------------------------------+
 *  |         the n payloads, concatenated in the same order        |
 * </pre>
 *
 * <p>Progress: every record of the color on this shard with an SN {@code <= progress} (and {@code
 * >= from sn}) has been sent on this subscription, in this frame or before it; no such record will
 * follow. The payloads follow the entry table so that the replica can write them as slices of its
 * log, without copying, after one header buffer.
 */
public final class SubscribeRecordsDescriptor {
  public static final int COLOR_OFFSET = 0;
  public static final int SHARD_OFFSET = 4;
  public static final int PROGRESS_OFFSET = 8;
  public static final int COUNT_OFFSET = 16;
  public static final int ENTRIES_OFFSET = 20;
  public static final int ENTRY_LENGTH = 12;

  private SubscribeRecordsDescriptor() {}

  /**
   * What a record costs against a subscription's credit: its payload and its table entry, so that
   * empty records are not free.
   */
  public static long recordCost(int payloadLength) {
    return (long) payloadLength + ENTRY_LENGTH;
  }

  /**
   * Writes the frame header and the batch header. The caller then writes {@code count} entries with
   * {@link #writeEntry} and the {@code payloadBytes} payload bytes, into this buffer (it has room
   * for {@code copiedPayloadBytes} of them) or as separate buffers written after it.
   */
  public static ByteBuf encodeHeader(
      ByteBufAllocator alloc,
      long subscriptionId,
      int colorId,
      int shardId,
      long progress,
      int count,
      int payloadBytes,
      int copiedPayloadBytes) {
    int table = ENTRIES_OFFSET + count * ENTRY_LENGTH;
    ByteBuf buf =
        FrameDescriptor.allocate(
            alloc,
            MessageType.SUBSCRIBE_RECORDS,
            subscriptionId,
            table + payloadBytes,
            table + copiedPayloadBytes);
    buf.writeInt(colorId);
    buf.writeInt(shardId);
    buf.writeLong(progress);
    buf.writeInt(count);
    return buf;
  }

  public static void writeEntry(ByteBuf buf, long sn, int payloadLength) {
    buf.writeLong(sn);
    buf.writeInt(payloadLength);
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireEntryTable(
        frame, "SUBSCRIBE_RECORDS", COUNT_OFFSET, ENTRIES_OFFSET, ENTRY_LENGTH, 8);
  }

  public static int colorId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COLOR_OFFSET);
  }

  public static int shardId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + SHARD_OFFSET);
  }

  public static long progress(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + PROGRESS_OFFSET);
  }

  public static int count(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COUNT_OFFSET);
  }

  public static long sn(ByteBuf frame, int index) {
    return frame.getLong(FrameDescriptor.body(frame) + ENTRIES_OFFSET + index * ENTRY_LENGTH);
  }

  public static int payloadLength(ByteBuf frame, int index) {
    return frame.getInt(FrameDescriptor.body(frame) + ENTRIES_OFFSET + index * ENTRY_LENGTH + 8);
  }

  /**
   * Index in {@code frame} of the first payload byte; record {@code i}'s payload starts after the
   * payloads of records {@code 0..i-1}.
   */
  public static int payloadsStart(ByteBuf frame) {
    return FrameDescriptor.body(frame) + ENTRIES_OFFSET + count(frame) * ENTRY_LENGTH;
  }
}
