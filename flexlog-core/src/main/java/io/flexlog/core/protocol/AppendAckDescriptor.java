package io.flexlog.core.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * APPEND_ACK body: a replica has committed the record with this token at {@code sn}. The append
 * completes when every replica of the shard acked the same SN.
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                   token: session id (8)                       |
 *  +---------------------------------------------------------------+
 *  |                   token: sequence (8)                         |
 *  +---------------------------------------------------------------+
 *  |                         sn (8)                                |
 *  +---------------------------------------------------------------+
 *  |                      color id (4)                             |
 *  +---------------------------------------------------------------+
 *  |                   replica node id (4)                         |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class AppendAckDescriptor {
  public static final int TOKEN_SESSION_OFFSET = 0;
  public static final int TOKEN_SEQUENCE_OFFSET = 8;
  public static final int SN_OFFSET = 16;
  public static final int COLOR_OFFSET = 24;
  public static final int REPLICA_OFFSET = 28;
  public static final int BODY_LENGTH = 32;

  private AppendAckDescriptor() {}

  public static ByteBuf encode(
      ByteBufAllocator alloc,
      long requestId,
      long tokenSession,
      long tokenSequence,
      long sn,
      int colorId,
      int replicaNodeId) {
    ByteBuf buf = FrameDescriptor.allocate(alloc, MessageType.APPEND_ACK, requestId, BODY_LENGTH);
    buf.writeLong(tokenSession);
    buf.writeLong(tokenSequence);
    buf.writeLong(sn);
    buf.writeInt(colorId);
    buf.writeInt(replicaNodeId);
    return buf;
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireLength(frame, "APPEND_ACK", BODY_LENGTH);
  }

  public static long tokenSession(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + TOKEN_SESSION_OFFSET);
  }

  public static long tokenSequence(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + TOKEN_SEQUENCE_OFFSET);
  }

  public static long sn(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + SN_OFFSET);
  }

  public static int colorId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COLOR_OFFSET);
  }

  public static int replicaNodeId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + REPLICA_OFFSET);
  }
}
