package io.flexlog.core.protocol;

import io.flexlog.core.error.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * STAGE body: one member of an atomic multi-color append
 * (docs/architecture.md#atomic-multi-color-append), sent by the client to every replica of the
 * broker shard. The replica stores it durably without ordering it and answers STAGE_ACK; the member
 * reaches its target color only after a COMMIT_GROUP. The token is the one the member will have in
 * its target color; the target shard is chosen by the client from the token and carried here so
 * that every replica of the broker shard forwards to the same shard.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                      group id: high 64 bits                   |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                      group id: low 64 bits                    |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                         member index                          |
 *  +---------------------------------------------------------------+
 *  |                         member count                          |
 *  +---------------------------------------------------------------+
 *  |                        broker shard id                        |
 *  +---------------------------------------------------------------+
 *  |                        target color id                        |
 *  +---------------------------------------------------------------+
 *  |                        target shard id                        |
 *  +---------------------------------------------------------------+
 *  |                      token: session id                        |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                      token: sequence                          |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                        payload length                         |
 *  +---------------------------------------------------------------+
 *  |                          payload ...                          |
 * </pre>
 */
public final class StageDescriptor {
  public static final int GROUP_HIGH_OFFSET = 0;
  public static final int GROUP_LOW_OFFSET = 8;
  public static final int MEMBER_INDEX_OFFSET = 16;
  public static final int MEMBER_COUNT_OFFSET = 20;
  public static final int BROKER_SHARD_OFFSET = 24;
  public static final int TARGET_COLOR_OFFSET = 28;
  public static final int TARGET_SHARD_OFFSET = 32;
  public static final int TOKEN_SESSION_OFFSET = 36;
  public static final int TOKEN_SEQUENCE_OFFSET = 44;
  public static final int PAYLOAD_LENGTH_OFFSET = 52;
  public static final int PAYLOAD_OFFSET = 56;

  /** The most members one atomic group may have; replicas refuse larger groups. */
  public static final int MAX_MEMBERS = 4096;

  private StageDescriptor() {}

  /** Encodes the frame up to the payload; the caller writes the payload right after it. */
  public static ByteBuf encodeHeader(
      ByteBufAllocator alloc,
      long requestId,
      long groupHigh,
      long groupLow,
      int memberIndex,
      int memberCount,
      int brokerShardId,
      int targetColorId,
      int targetShardId,
      long tokenSession,
      long tokenSequence,
      int payloadLength) {
    ByteBuf buf =
        FrameDescriptor.allocate(
            alloc, MessageType.STAGE, requestId, PAYLOAD_OFFSET + payloadLength, PAYLOAD_OFFSET);
    buf.writeLong(groupHigh);
    buf.writeLong(groupLow);
    buf.writeInt(memberIndex);
    buf.writeInt(memberCount);
    buf.writeInt(brokerShardId);
    buf.writeInt(targetColorId);
    buf.writeInt(targetShardId);
    buf.writeLong(tokenSession);
    buf.writeLong(tokenSequence);
    buf.writeInt(payloadLength);
    return buf;
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireAtLeast(frame, "STAGE", PAYLOAD_OFFSET);
    int length = payloadLength(frame);
    if (length < 0 || length != FrameDescriptor.bodyLength(frame) - PAYLOAD_OFFSET) {
      throw new ProtocolException(
          "STAGE payload length "
              + length
              + " does not match frame body "
              + FrameDescriptor.bodyLength(frame));
    }
    Bodies.requireMember(frame, "STAGE", memberIndex(frame), memberCount(frame));
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

  public static int memberCount(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + MEMBER_COUNT_OFFSET);
  }

  public static int brokerShardId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + BROKER_SHARD_OFFSET);
  }

  public static int targetColorId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + TARGET_COLOR_OFFSET);
  }

  public static int targetShardId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + TARGET_SHARD_OFFSET);
  }

  public static long tokenSession(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + TOKEN_SESSION_OFFSET);
  }

  public static long tokenSequence(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + TOKEN_SEQUENCE_OFFSET);
  }

  public static int payloadLength(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + PAYLOAD_LENGTH_OFFSET);
  }

  /** A view of the payload sharing the frame's memory; not retained. */
  public static ByteBuf payload(ByteBuf frame) {
    return frame.slice(FrameDescriptor.body(frame) + PAYLOAD_OFFSET, payloadLength(frame));
  }
}
