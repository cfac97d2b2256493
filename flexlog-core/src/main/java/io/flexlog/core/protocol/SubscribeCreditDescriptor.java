package io.flexlog.core.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * SUBSCRIBE_CREDIT body: the subscriber consumed records and may receive this many more bytes
 * (counted with {@link SubscribeRecordsDescriptor#recordCost}). The request id is the subscription
 * id.
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                     credit (bytes, 8)                         |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class SubscribeCreditDescriptor {
  public static final int CREDIT_OFFSET = 0;
  public static final int BODY_LENGTH = 8;

  private SubscribeCreditDescriptor() {}

  public static ByteBuf encode(ByteBufAllocator alloc, long subscriptionId, long credit) {
    ByteBuf buf =
        FrameDescriptor.allocate(alloc, MessageType.SUBSCRIBE_CREDIT, subscriptionId, BODY_LENGTH);
    buf.writeLong(credit);
    return buf;
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireLength(frame, "SUBSCRIBE_CREDIT", BODY_LENGTH);
  }

  public static long credit(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + CREDIT_OFFSET);
  }
}
