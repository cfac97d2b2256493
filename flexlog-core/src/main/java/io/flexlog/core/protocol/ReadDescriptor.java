package io.flexlog.core.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * READ body: read the record of a color at an SN from one replica.
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                        color id (4)                           |
 *  +---------------------------------------------------------------+
 *  |                           sn (8)                              |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class ReadDescriptor {
  public static final int COLOR_OFFSET = 0;
  public static final int SN_OFFSET = 4;
  public static final int BODY_LENGTH = 12;

  private ReadDescriptor() {}

  public static ByteBuf encode(ByteBufAllocator alloc, long requestId, int colorId, long sn) {
    ByteBuf buf = FrameDescriptor.allocate(alloc, MessageType.READ, requestId, BODY_LENGTH);
    buf.writeInt(colorId);
    buf.writeLong(sn);
    return buf;
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireLength(frame, "READ", BODY_LENGTH);
  }

  public static int colorId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COLOR_OFFSET);
  }

  public static long sn(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + SN_OFFSET);
  }
}
