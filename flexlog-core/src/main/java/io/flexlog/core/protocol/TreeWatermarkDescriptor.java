package io.flexlog.core.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * TREE_WATERMARK body: a parent sequencer node tells a child that every SN {@code <= watermark} of
 * the color has been assigned, and that every RANGE_RESPONSE it owes the child for requests that
 * climbed through the tree edge {@code via color} with such an SN was sent before this frame on the
 * same connection (docs/architecture.md#watermarks, extended down the sequencer tree).
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                        color id (4)                           |
 *  +---------------------------------------------------------------+
 *  |  via color id: the child's color the watermark descends to (4)|
 *  +---------------------------------------------------------------+
 *  |                       watermark sn (8)                        |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class TreeWatermarkDescriptor {
  public static final int COLOR_OFFSET = 0;
  public static final int VIA_COLOR_OFFSET = 4;
  public static final int WATERMARK_OFFSET = 8;
  public static final int BODY_LENGTH = 16;

  private TreeWatermarkDescriptor() {}

  public static ByteBuf encode(
      ByteBufAllocator alloc, int colorId, int viaColorId, long watermark) {
    ByteBuf buf = FrameDescriptor.allocate(alloc, MessageType.TREE_WATERMARK, 0L, BODY_LENGTH);
    buf.writeInt(colorId);
    buf.writeInt(viaColorId);
    buf.writeLong(watermark);
    return buf;
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireLength(frame, "TREE_WATERMARK", BODY_LENGTH);
  }

  public static int colorId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COLOR_OFFSET);
  }

  public static int viaColorId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + VIA_COLOR_OFFSET);
  }

  public static long watermark(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + WATERMARK_OFFSET);
  }
}
