package io.flexlog.core.protocol;

import io.flexlog.core.error.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * COMMIT_GROUP body: the client saw every replica of the broker shard acknowledge every member of
 * the group, and asks the receiving replica to persist the group's end marker and forward each
 * member to its target color. Sent to every replica of the broker shard; the answer is a
 * GROUP_RESULT.
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                   group id: high 64 bits (8)                  |
 *  +---------------------------------------------------------------+
 *  |                   group id: low 64 bits (8)                   |
 *  +---------------------------------------------------------------+
 *  |                     broker shard id (4)                       |
 *  +---------------------------------------------------------------+
 *  |                      member count (4)                         |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class CommitGroupDescriptor {
  public static final int GROUP_HIGH_OFFSET = 0;
  public static final int GROUP_LOW_OFFSET = 8;
  public static final int BROKER_SHARD_OFFSET = 16;
  public static final int MEMBER_COUNT_OFFSET = 20;
  public static final int BODY_LENGTH = 24;

  private CommitGroupDescriptor() {}

  public static ByteBuf encode(
      ByteBufAllocator alloc,
      long requestId,
      long groupHigh,
      long groupLow,
      int brokerShardId,
      int memberCount) {
    ByteBuf buf = FrameDescriptor.allocate(alloc, MessageType.COMMIT_GROUP, requestId, BODY_LENGTH);
    buf.writeLong(groupHigh);
    buf.writeLong(groupLow);
    buf.writeInt(brokerShardId);
    buf.writeInt(memberCount);
    return buf;
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireLength(frame, "COMMIT_GROUP", BODY_LENGTH);
    if (memberCount(frame) < 1) {
      throw new ProtocolException("COMMIT_GROUP member count must be >= 1: " + memberCount(frame));
    }
  }

  public static long groupHigh(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + GROUP_HIGH_OFFSET);
  }

  public static long groupLow(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + GROUP_LOW_OFFSET);
  }

  public static int brokerShardId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + BROKER_SHARD_OFFSET);
  }

  public static int memberCount(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + MEMBER_COUNT_OFFSET);
  }
}
