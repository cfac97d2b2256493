package io.flexlog.core.protocol;

import io.flexlog.core.error.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * RANGE_RESPONSE body: the answer to the RANGE_REQUEST with the same request id: the SNs {@code
 * [first sn, first sn + count)} of the color, all in the epoch of {@code first sn} (a range never
 * spans two epochs). A re-sent request gets the same range again.
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                        color id (4)                           |
 *  +---------------------------------------------------------------+
 *  |                      first sn, > 0 (8)                        |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     count n, >= 1 (4)                         |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class RangeResponseDescriptor {
  public static final int COLOR_OFFSET = 0;
  public static final int FIRST_SN_OFFSET = 4;
  public static final int COUNT_OFFSET = 12;
  public static final int BODY_LENGTH = 16;

  private RangeResponseDescriptor() {}

  public static ByteBuf encode(
      ByteBufAllocator alloc, long requestId, int colorId, long firstSn, int count) {
    ByteBuf buf =
        FrameDescriptor.allocate(alloc, MessageType.RANGE_RESPONSE, requestId, BODY_LENGTH);
    buf.writeInt(colorId);
    buf.writeLong(firstSn);
    buf.writeInt(count);
    return buf;
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireLength(frame, "RANGE_RESPONSE", BODY_LENGTH);
    if (firstSn(frame) < 1) {
      throw new ProtocolException("RANGE_RESPONSE first sn must be > 0, got " + firstSn(frame));
    }
    if (count(frame) < 1) {
      throw new ProtocolException("RANGE_RESPONSE count must be >= 1, got " + count(frame));
    }
  }

  public static int colorId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COLOR_OFFSET);
  }

  public static long firstSn(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + FIRST_SN_OFFSET);
  }

  public static int count(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COUNT_OFFSET);
  }
}
