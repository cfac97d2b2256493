package io.flexlog.core.protocol;

import io.flexlog.core.error.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * APPEND body: a client asks a replica to store a record. The same frame (same token) goes to every
 * replica of the chosen shard; retries reuse the token.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                      token: session id                        |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                      token: sequence                          |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                          color id                             |
 *  +---------------------------------------------------------------+
 *  |                          shard id                             |
 *  +---------------------------------------------------------------+
 *  |                       payload length                          |
 *  +---------------------------------------------------------------+
 *  |                         payload ...                           |
 * </pre>
 */
public final class AppendDescriptor {
  public static final int TOKEN_SESSION_OFFSET = 0;
  public static final int TOKEN_SEQUENCE_OFFSET = 8;
  public static final int COLOR_OFFSET = 16;
  public static final int SHARD_OFFSET = 20;
  public static final int PAYLOAD_LENGTH_OFFSET = 24;
  public static final int PAYLOAD_OFFSET = 28;

  private AppendDescriptor() {}

  /**
   * Encodes the frame up to the payload; the caller writes the payload (for example a retained
   * duplicate of the user's buffer) right after it on the same channel.
   */
  public static ByteBuf encodeHeader(
      ByteBufAllocator alloc,
      long requestId,
      long tokenSession,
      long tokenSequence,
      int colorId,
      int shardId,
      int payloadLength) {
    ByteBuf buf =
        FrameDescriptor.allocate(
            alloc, MessageType.APPEND, requestId, PAYLOAD_OFFSET + payloadLength, PAYLOAD_OFFSET);
    buf.writeLong(tokenSession);
    buf.writeLong(tokenSequence);
    buf.writeInt(colorId);
    buf.writeInt(shardId);
    buf.writeInt(payloadLength);
    return buf;
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireAtLeast(frame, "APPEND", PAYLOAD_OFFSET);
    int length = payloadLength(frame);
    if (length < 0 || length != FrameDescriptor.bodyLength(frame) - PAYLOAD_OFFSET) {
      throw new ProtocolException(
          "APPEND payload length "
              + length
              + " does not match frame body "
              + FrameDescriptor.bodyLength(frame));
    }
  }

  public static long tokenSession(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + TOKEN_SESSION_OFFSET);
  }

  public static long tokenSequence(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + TOKEN_SEQUENCE_OFFSET);
  }

  public static int colorId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COLOR_OFFSET);
  }

  public static int shardId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + SHARD_OFFSET);
  }

  public static int payloadLength(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + PAYLOAD_LENGTH_OFFSET);
  }

  /** A view of the payload sharing the frame's memory; not retained. */
  public static ByteBuf payload(ByteBuf frame) {
    return frame.slice(FrameDescriptor.body(frame) + PAYLOAD_OFFSET, payloadLength(frame));
  }
}
