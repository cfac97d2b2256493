package io.flexlog.core.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * ORDER_RESPONSE body: the SNs assigned to tokens of one color of one shard. The sequencer
 * broadcasts it to every replica of the shard, and answers a duplicate request from one replica
 * with the SNs already assigned.
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                        color id (4)                           |
 *  +---------------------------------------------------------------+
 *  |                        shard id (4)                           |
 *  +---------------------------------------------------------------+
 *  |                      entry count n (4)                        |
 *  +---------------------------------------------------------------+
 *  |  n x { token session id (8), token sequence (8), sn (8) }     |
 * </pre>
 */
public final class OrderResponseDescriptor {
  public static final int COLOR_OFFSET = 0;
  public static final int SHARD_OFFSET = 4;
  public static final int COUNT_OFFSET = 8;
  public static final int ENTRIES_OFFSET = 12;
  public static final int ENTRY_LENGTH = 24;

  private OrderResponseDescriptor() {}

  /** Writes the header; the caller then writes {@code count} entries with {@link #writeEntry}. */
  public static ByteBuf encodeHeader(ByteBufAllocator alloc, int colorId, int shardId, int count) {
    int bodyLength = ENTRIES_OFFSET + count * ENTRY_LENGTH;
    ByteBuf buf = FrameDescriptor.allocate(alloc, MessageType.ORDER_RESPONSE, 0L, bodyLength);
    buf.writeInt(colorId);
    buf.writeInt(shardId);
    buf.writeInt(count);
    return buf;
  }

  public static void writeEntry(ByteBuf buf, long session, long sequence, long sn) {
    buf.writeLong(session);
    buf.writeLong(sequence);
    buf.writeLong(sn);
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireAtLeast(frame, "ORDER_RESPONSE", ENTRIES_OFFSET);
    Bodies.requireCount(frame, "ORDER_RESPONSE", COUNT_OFFSET, ENTRIES_OFFSET, ENTRY_LENGTH);
  }

  public static int colorId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COLOR_OFFSET);
  }

  public static int shardId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + SHARD_OFFSET);
  }

  public static int count(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COUNT_OFFSET);
  }

  private static int entry(ByteBuf frame, int index) {
    return FrameDescriptor.body(frame) + ENTRIES_OFFSET + index * ENTRY_LENGTH;
  }

  public static long tokenSession(ByteBuf frame, int index) {
    return frame.getLong(entry(frame, index));
  }

  public static long tokenSequence(ByteBuf frame, int index) {
    return frame.getLong(entry(frame, index) + 8);
  }

  public static long sn(ByteBuf frame, int index) {
    return frame.getLong(entry(frame, index) + 16);
  }
}
