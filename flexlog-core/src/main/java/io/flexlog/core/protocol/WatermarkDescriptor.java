package io.flexlog.core.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * WATERMARK body: every SN {@code <= watermark} of the color has been assigned, and every
 * ORDER_RESPONSE carrying such an SN to this replica was sent before this frame on the same
 * connection (docs/architecture.md#watermarks).
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                        color id (4)                           |
 *  +---------------------------------------------------------------+
 *  |                       watermark sn (8)                        |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class WatermarkDescriptor {
  public static final int COLOR_OFFSET = 0;
  public static final int WATERMARK_OFFSET = 4;
  public static final int BODY_LENGTH = 12;

  private WatermarkDescriptor() {}

  public static ByteBuf encode(ByteBufAllocator alloc, int colorId, long watermark) {
    ByteBuf buf = FrameDescriptor.allocate(alloc, MessageType.WATERMARK, 0L, BODY_LENGTH);
    buf.writeInt(colorId);
    buf.writeLong(watermark);
    return buf;
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireLength(frame, "WATERMARK", BODY_LENGTH);
  }

  public static int colorId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COLOR_OFFSET);
  }

  public static long watermark(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + WATERMARK_OFFSET);
  }
}
