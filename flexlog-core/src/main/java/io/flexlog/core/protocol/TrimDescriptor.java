package io.flexlog.core.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * TRIM body: client to every replica of every shard in a color's subtree; drop the color's records
 * at or below an SN (docs/architecture.md#trim).
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                        color id (4)                           |
 *  +---------------------------------------------------------------+
 *  |                    sn (8): the new trim point                 |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class TrimDescriptor {
  public static final int COLOR_OFFSET = 0;
  public static final int SN_OFFSET = 4;
  public static final int BODY_LENGTH = 12;

  private TrimDescriptor() {}

  public static ByteBuf encode(ByteBufAllocator alloc, long requestId, int colorId, long sn) {
    ByteBuf buf = FrameDescriptor.allocate(alloc, MessageType.TRIM, requestId, BODY_LENGTH);
    buf.writeInt(colorId);
    buf.writeLong(sn);
    return buf;
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireLength(frame, "TRIM", BODY_LENGTH);
  }

  public static int colorId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COLOR_OFFSET);
  }

  public static long sn(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + SN_OFFSET);
  }
}
