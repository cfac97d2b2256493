package io.flexlog.core.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * ORDER_REQUEST body: a replica asks the sequencer its shard is attached to for the SNs of a batch
 * of tokens of one color. Every replica of a shard sends the same tokens; the sequencer
 * deduplicates them. The frame's request id carries the role epoch the replica addressed (the
 * shard's color's {@code roleEpoch} in its topology; 0 names none): a role in a larger epoch drops
 * the request (docs/protocol.md#order_request).
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                        color id (4)                           |
 *  +---------------------------------------------------------------+
 *  |                        shard id (4)                           |
 *  +---------------------------------------------------------------+
 *  |                    replica node id (4)                        |
 *  +---------------------------------------------------------------+
 *  |                       token count n (4)                       |
 *  +---------------------------------------------------------------+
 *  |  n x { token session id (8), token sequence (8) }             |
 * </pre>
 */
public final class OrderRequestDescriptor {
  public static final int COLOR_OFFSET = 0;
  public static final int SHARD_OFFSET = 4;
  public static final int REPLICA_OFFSET = 8;
  public static final int COUNT_OFFSET = 12;
  public static final int TOKENS_OFFSET = 16;
  public static final int TOKEN_LENGTH = CountedArrays.TOKEN_LENGTH;

  private OrderRequestDescriptor() {}

  /**
   * Writes the header of a request that names no role epoch; the caller then writes {@code count}
   * tokens with {@link #writeToken}.
   */
  public static ByteBuf encodeHeader(
      ByteBufAllocator alloc, int colorId, int shardId, int replicaNodeId, int count) {
    return encodeHeader(alloc, 0, colorId, shardId, replicaNodeId, count);
  }

  /**
   * Writes the header of a request addressed to the leader of the role in {@code roleEpoch}; the
   * caller then writes {@code count} tokens with {@link #writeToken}.
   */
  public static ByteBuf encodeHeader(
      ByteBufAllocator alloc,
      int roleEpoch,
      int colorId,
      int shardId,
      int replicaNodeId,
      int count) {
    int bodyLength = CountedArrays.bodyLength(COUNT_OFFSET, count, TOKEN_LENGTH);
    ByteBuf buf = FrameDescriptor.allocate(alloc, MessageType.ORDER_REQUEST, roleEpoch, bodyLength);
    buf.writeInt(colorId);
    buf.writeInt(shardId);
    buf.writeInt(replicaNodeId);
    buf.writeInt(count);
    return buf;
  }

  public static void writeToken(ByteBuf buf, long session, long sequence) {
    CountedArrays.writeToken(buf, session, sequence);
  }

  public static void validate(ByteBuf frame) {
    CountedArrays.validate(frame, "ORDER_REQUEST", COUNT_OFFSET, TOKEN_LENGTH);
  }

  /** The role epoch the replica addressed (the frame's request id), 0 if it named none. */
  public static long roleEpoch(ByteBuf frame) {
    return FrameDescriptor.requestId(frame);
  }

  public static int colorId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COLOR_OFFSET);
  }

  public static int shardId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + SHARD_OFFSET);
  }

  public static int replicaNodeId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + REPLICA_OFFSET);
  }

  public static int count(ByteBuf frame) {
    return CountedArrays.count(frame, COUNT_OFFSET);
  }

  public static long tokenSession(ByteBuf frame, int index) {
    return CountedArrays.tokenSession(frame, COUNT_OFFSET, index);
  }

  public static long tokenSequence(ByteBuf frame, int index) {
    return CountedArrays.tokenSequence(frame, COUNT_OFFSET, index);
  }
}
