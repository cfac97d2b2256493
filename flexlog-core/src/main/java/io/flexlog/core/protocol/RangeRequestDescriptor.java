package io.flexlog.core.protocol;

import io.flexlog.core.error.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * RANGE_REQUEST body: a child sequencer node asks its parent for {@code count} consecutive SNs of a
 * color on behalf of the order requests it aggregated (paper §5.2). The frame's request id names
 * the request within the child's incarnation; a child re-sends a request with the same id after its
 * connection broke, and the parent answers a request id at most once with a fresh range.
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                  color id: the requested color (4)            |
 *  +---------------------------------------------------------------+
 *  |   via color id: the child's color whose parent the receiver   |
 *  |   hosts, i.e. the tree edge the request climbs (4)            |
 *  +---------------------------------------------------------------+
 *  |                    count n, >= 1 (4)                          |
 *  +---------------------------------------------------------------+
 *  |     oldest request id the child still awaits an answer to (8) |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>The request id in the frame header is {@code >= 1}. The oldest-outstanding id lets the parent
 * forget the answers to every smaller request id of this child incarnation.
 */
public final class RangeRequestDescriptor {
  public static final int COLOR_OFFSET = 0;
  public static final int VIA_COLOR_OFFSET = 4;
  public static final int COUNT_OFFSET = 8;
  public static final int OLDEST_OUTSTANDING_OFFSET = 12;
  public static final int BODY_LENGTH = 20;

  private RangeRequestDescriptor() {}

  public static ByteBuf encode(
      ByteBufAllocator alloc,
      long requestId,
      int colorId,
      int viaColorId,
      int count,
      long oldestOutstanding) {
    ByteBuf buf =
        FrameDescriptor.allocate(alloc, MessageType.RANGE_REQUEST, requestId, BODY_LENGTH);
    buf.writeInt(colorId);
    buf.writeInt(viaColorId);
    buf.writeInt(count);
    buf.writeLong(oldestOutstanding);
    return buf;
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireLength(frame, "RANGE_REQUEST", BODY_LENGTH);
    if (FrameDescriptor.requestId(frame) < 1) {
      throw new ProtocolException(
          "RANGE_REQUEST request id must be >= 1, got " + FrameDescriptor.requestId(frame));
    }
    if (count(frame) < 1) {
      throw new ProtocolException("RANGE_REQUEST count must be >= 1, got " + count(frame));
    }
  }

  public static int colorId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COLOR_OFFSET);
  }

  public static int viaColorId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + VIA_COLOR_OFFSET);
  }

  public static int count(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COUNT_OFFSET);
  }

  public static long oldestOutstanding(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + OLDEST_OUTSTANDING_OFFSET);
  }
}
