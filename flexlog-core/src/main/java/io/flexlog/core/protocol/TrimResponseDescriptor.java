package io.flexlog.core.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * TRIM_RESPONSE body: a replica recorded the trim point durably. The request id echoes the TRIM's.
 * The trim point may exceed the requested SN when an earlier trim went further; the tail is the
 * largest SN of the color that this replica knows to be assigned.
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                        color id (4)                           |
 *  +---------------------------------------------------------------+
 *  |                      trim point (8)                           |
 *  +---------------------------------------------------------------+
 *  |                         tail (8)                              |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class TrimResponseDescriptor {
  public static final int COLOR_OFFSET = 0;
  public static final int TRIM_POINT_OFFSET = 4;
  public static final int TAIL_OFFSET = 12;
  public static final int BODY_LENGTH = 20;

  private TrimResponseDescriptor() {}

  public static ByteBuf encode(
      ByteBufAllocator alloc, long requestId, int colorId, long trimPoint, long tail) {
    ByteBuf buf =
        FrameDescriptor.allocate(alloc, MessageType.TRIM_RESPONSE, requestId, BODY_LENGTH);
    buf.writeInt(colorId);
    buf.writeLong(trimPoint);
    buf.writeLong(tail);
    return buf;
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireLength(frame, "TRIM_RESPONSE", BODY_LENGTH);
  }

  public static int colorId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COLOR_OFFSET);
  }

  public static long trimPoint(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + TRIM_POINT_OFFSET);
  }

  public static long tail(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + TAIL_OFFSET);
  }
}
