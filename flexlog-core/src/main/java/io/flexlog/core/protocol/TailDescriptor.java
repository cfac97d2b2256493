package io.flexlog.core.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * TAIL_REQUEST and TAIL_RESPONSE bodies (docs/architecture.md#head-and-tail). A client asks the
 * sequencer node hosting a color's role for the color's tail, the last SN the role issued (no SN
 * above it can hold a completed append), and a replica for the color's trim point.
 *
 * <pre>
 * TAIL_REQUEST
 *  +---------------------------------------------------------------+
 *  |                        color id (4)                           |
 *  +---------------------------------------------------------------+
 *
 * TAIL_RESPONSE
 *  +---------------------------------------------------------------+
 *  |                        color id (4)                           |
 *  +---------------------------------------------------------------+
 *  |   trim point (8): records at or below it are gone; 0 none     |
 *  |                   (a sequencer always answers 0)              |
 *  +---------------------------------------------------------------+
 *  |   tail (8): a sequencer: the last SN its role issued, or      |
 *  |   epoch.0 before the first of its epoch; a replica: the       |
 *  |   largest SN of the color it knows to be assigned             |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class TailDescriptor {
  public static final int COLOR_OFFSET = 0;
  public static final int REQUEST_BODY_LENGTH = 4;
  public static final int TRIM_POINT_OFFSET = 4;
  public static final int TAIL_OFFSET = 12;
  public static final int RESPONSE_BODY_LENGTH = 20;

  private TailDescriptor() {}

  public static ByteBuf encodeRequest(ByteBufAllocator alloc, long requestId, int colorId) {
    ByteBuf buf =
        FrameDescriptor.allocate(alloc, MessageType.TAIL_REQUEST, requestId, REQUEST_BODY_LENGTH);
    buf.writeInt(colorId);
    return buf;
  }

  public static ByteBuf encodeResponse(
      ByteBufAllocator alloc, long requestId, int colorId, long trimPoint, long tail) {
    ByteBuf buf =
        FrameDescriptor.allocate(alloc, MessageType.TAIL_RESPONSE, requestId, RESPONSE_BODY_LENGTH);
    buf.writeInt(colorId);
    buf.writeLong(trimPoint);
    buf.writeLong(tail);
    return buf;
  }

  public static void validateRequest(ByteBuf frame) {
    Bodies.requireLength(frame, "TAIL_REQUEST", REQUEST_BODY_LENGTH);
  }

  public static void validateResponse(ByteBuf frame) {
    Bodies.requireLength(frame, "TAIL_RESPONSE", RESPONSE_BODY_LENGTH);
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
