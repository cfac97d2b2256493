package io.flexlog.core.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * UNSUBSCRIBE: end the subscription named by the request id. The body is empty; the replica does
 * not answer, and frames of the subscription already on their way may still arrive.
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                     (no body: 0 bytes)                        |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class UnsubscribeDescriptor {
  public static final int BODY_LENGTH = 0;

  private UnsubscribeDescriptor() {}

  public static ByteBuf encode(ByteBufAllocator alloc, long subscriptionId) {
    return FrameDescriptor.allocate(alloc, MessageType.UNSUBSCRIBE, subscriptionId, BODY_LENGTH);
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireLength(frame, "UNSUBSCRIBE", BODY_LENGTH);
  }
}
