package io.flexlog.core.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * STAGE_ACK body: a replica of the broker shard holds one member of an atomic group durably. The
 * request id echoes the STAGE's.
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                   group id: high 64 bits (8)                  |
 *  +---------------------------------------------------------------+
 *  |                   group id: low 64 bits (8)                   |
 *  +---------------------------------------------------------------+
 *  |                       member index (4)                        |
 *  +---------------------------------------------------------------+
 *  |                     replica node id (4)                       |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class StageAckDescriptor {
  public static final int GROUP_HIGH_OFFSET = 0;
  public static final int GROUP_LOW_OFFSET = 8;
  public static final int MEMBER_INDEX_OFFSET = 16;
  public static final int REPLICA_OFFSET = 20;
  public static final int BODY_LENGTH = 24;

  private StageAckDescriptor() {}

  public static ByteBuf encode(
      ByteBufAllocator alloc,
      long requestId,
      long groupHigh,
      long groupLow,
      int memberIndex,
      int replicaNodeId) {
    ByteBuf buf = FrameDescriptor.allocate(alloc, MessageType.STAGE_ACK, requestId, BODY_LENGTH);
    buf.writeLong(groupHigh);
    buf.writeLong(groupLow);
    buf.writeInt(memberIndex);
    buf.writeInt(replicaNodeId);
    return buf;
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireLength(frame, "STAGE_ACK", BODY_LENGTH);
  }

  public static long groupHigh(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + GROUP_HIGH_OFFSET);
  }

  public static long groupLow(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + GROUP_LOW_OFFSET);
  }

  public static int memberIndex(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + MEMBER_INDEX_OFFSET);
  }

  public static int replicaNodeId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + REPLICA_OFFSET);
  }
}
