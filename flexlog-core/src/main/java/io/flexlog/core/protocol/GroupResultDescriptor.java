package io.flexlog.core.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * GROUP_RESULT body: every member of an atomic group is committed in its target color; the SNs, in
 * member order. The request id echoes the COMMIT_GROUP's. Every replica of the broker shard that
 * got the COMMIT_GROUP answers; the client takes the first answer.
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                   group id: high 64 bits (8)                  |
 *  +---------------------------------------------------------------+
 *  |                   group id: low 64 bits (8)                   |
 *  +---------------------------------------------------------------+
 *  |                     replica node id (4)                       |
 *  +---------------------------------------------------------------+
 *  |                      member count n (4)                       |
 *  +---------------------------------------------------------------+
 *  |               sn of member 0 (8) ... member n-1               |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class GroupResultDescriptor {
  public static final int GROUP_HIGH_OFFSET = 0;
  public static final int GROUP_LOW_OFFSET = 8;
  public static final int REPLICA_OFFSET = 16;
  public static final int COUNT_OFFSET = 20;
  public static final int SNS_OFFSET = 24;
  public static final int SN_LENGTH = 8;

  private GroupResultDescriptor() {}

  public static ByteBuf encode(
      ByteBufAllocator alloc,
      long requestId,
      long groupHigh,
      long groupLow,
      int replicaNodeId,
      long[] sns) {
    ByteBuf buf =
        FrameDescriptor.allocate(
            alloc, MessageType.GROUP_RESULT, requestId, SNS_OFFSET + sns.length * SN_LENGTH);
    buf.writeLong(groupHigh);
    buf.writeLong(groupLow);
    buf.writeInt(replicaNodeId);
    buf.writeInt(sns.length);
    for (long sn : sns) {
      buf.writeLong(sn);
    }
    return buf;
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireCount(frame, "GROUP_RESULT", COUNT_OFFSET, SNS_OFFSET, SN_LENGTH);
  }

  public static long groupHigh(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + GROUP_HIGH_OFFSET);
  }

  public static long groupLow(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + GROUP_LOW_OFFSET);
  }

  public static int replicaNodeId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + REPLICA_OFFSET);
  }

  public static int count(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COUNT_OFFSET);
  }

  public static long sn(ByteBuf frame, int index) {
    return frame.getLong(FrameDescriptor.body(frame) + SNS_OFFSET + index * SN_LENGTH);
  }
}
