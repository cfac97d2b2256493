package io.flexlog.core.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * SUBSCRIBE_PROGRESS body: the subscription's progress moved (same meaning as in {@link
 * SubscribeRecordsDescriptor}) without records to send. A replica also sends one right after it
 * accepts a SUBSCRIBE that has nothing to send yet, so the client knows the subscription is open.
 * The request id is the subscription id.
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                        color id (4)                           |
 *  +---------------------------------------------------------------+
 *  |                        shard id (4)                           |
 *  +---------------------------------------------------------------+
 *  |                       progress sn (8)                         |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class SubscribeProgressDescriptor {
  public static final int COLOR_OFFSET = 0;
  public static final int SHARD_OFFSET = 4;
  public static final int PROGRESS_OFFSET = 8;
  public static final int BODY_LENGTH = 16;

  private SubscribeProgressDescriptor() {}

  public static ByteBuf encode(
      ByteBufAllocator alloc, long subscriptionId, int colorId, int shardId, long progress) {
    ByteBuf buf =
        FrameDescriptor.allocate(
            alloc, MessageType.SUBSCRIBE_PROGRESS, subscriptionId, BODY_LENGTH);
    buf.writeInt(colorId);
    buf.writeInt(shardId);
    buf.writeLong(progress);
    return buf;
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireLength(frame, "SUBSCRIBE_PROGRESS", BODY_LENGTH);
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
}
