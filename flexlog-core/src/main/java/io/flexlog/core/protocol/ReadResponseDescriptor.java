package io.flexlog.core.protocol;

import io.flexlog.core.error.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * READ_RESPONSE body: the outcome of a READ on one replica
 * (docs/architecture.md#read-hold-or-decide).
 *
 * <pre>
 *  +---------------+-----------------------------------------------+
 *  |  status (1)   |                 reserved (3)                  |
 *  +---------------+-----------------------------------------------+
 *  |                        color id (4)                           |
 *  +---------------------------------------------------------------+
 *  |                           sn (8)                              |
 *  +---------------------------------------------------------------+
 *  |        bound (8): trim point for TRIMMED, else committedThrough |
 *  +---------------------------------------------------------------+
 *  |                     payload length (4)                        |
 *  +---------------------------------------------------------------+
 *  |                payload ... (FOUND only, else empty)           |
 * </pre>
 */
public final class ReadResponseDescriptor {
  /** The replica holds the record; the payload follows. */
  public static final byte FOUND = 0;

  /** No record at this SN: a hole ({@code sn <= committedThrough}). */
  public static final byte ABSENT = 1;

  /** The replica could not decide before its hold timeout; ask again, maybe elsewhere. */
  public static final byte RETRY = 2;

  /** The SN lies at or below the color's trim point. */
  public static final byte TRIMMED = 3;

  public static final int STATUS_OFFSET = 0;
  public static final int COLOR_OFFSET = 4;
  public static final int SN_OFFSET = 8;
  public static final int BOUND_OFFSET = 16;
  public static final int PAYLOAD_LENGTH_OFFSET = 24;
  public static final int PAYLOAD_OFFSET = 28;

  private ReadResponseDescriptor() {}

  /** Encodes everything but the payload; a FOUND answer then writes the payload buffer. */
  public static ByteBuf encodeHeader(
      ByteBufAllocator alloc,
      long requestId,
      byte status,
      int colorId,
      long sn,
      long bound,
      int payloadLength) {
    ByteBuf buf =
        FrameDescriptor.allocate(
            alloc,
            MessageType.READ_RESPONSE,
            requestId,
            PAYLOAD_OFFSET + payloadLength,
            PAYLOAD_OFFSET);
    buf.writeByte(status);
    buf.writeZero(3);
    buf.writeInt(colorId);
    buf.writeLong(sn);
    buf.writeLong(bound);
    buf.writeInt(payloadLength);
    return buf;
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireAtLeast(frame, "READ_RESPONSE", PAYLOAD_OFFSET);
    byte status = status(frame);
    if (status < FOUND || status > TRIMMED) {
      throw new ProtocolException("READ_RESPONSE has unknown status " + status);
    }
    int length = payloadLength(frame);
    if (length < 0 || length != FrameDescriptor.bodyLength(frame) - PAYLOAD_OFFSET) {
      throw new ProtocolException(
          "READ_RESPONSE payload length " + length + " does not match frame body");
    }
  }

  public static byte status(ByteBuf frame) {
    return frame.getByte(FrameDescriptor.body(frame) + STATUS_OFFSET);
  }

  public static int colorId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COLOR_OFFSET);
  }

  public static long sn(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + SN_OFFSET);
  }

  public static long bound(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + BOUND_OFFSET);
  }

  public static int payloadLength(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + PAYLOAD_LENGTH_OFFSET);
  }

  public static ByteBuf payload(ByteBuf frame) {
    return frame.slice(FrameDescriptor.body(frame) + PAYLOAD_OFFSET, payloadLength(frame));
  }
}
