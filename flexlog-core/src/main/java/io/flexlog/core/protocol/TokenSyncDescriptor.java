package io.flexlog.core.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * TOKEN_SYNC body: a replica whose sequencer link came (back) up asks another replica of the same
 * shard which of its pending tokens already have an SN there (docs/architecture.md#token-sync). The
 * incarnation is the sequencer process the asker is now connected to: the peer answers only once it
 * cannot receive an ORDER_RESPONSE from an earlier process any more. The request id travels in the
 * frame header.
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                        shard id (4)                           |
 *  +---------------------------------------------------------------+
 *  |                 asking replica node id (4)                    |
 *  +---------------------------------------------------------------+
 *  |                   sequencer node id (4)                       |
 *  +---------------------------------------------------------------+
 *  |                 sequencer incarnation (4)                     |
 *  +---------------------------------------------------------------+
 *  |                       token count n (4)                       |
 *  +---------------------------------------------------------------+
 *  |  n x { token session id (8), token sequence (8) }             |
 * </pre>
 */
public final class TokenSyncDescriptor {
  public static final int SHARD_OFFSET = 0;
  public static final int REPLICA_OFFSET = 4;
  public static final int SEQUENCER_OFFSET = 8;
  public static final int INCARNATION_OFFSET = 12;
  public static final int COUNT_OFFSET = 16;
  public static final int TOKENS_OFFSET = 20;
  public static final int TOKEN_LENGTH = CountedArrays.TOKEN_LENGTH;

  /** The most tokens one request carries (256 KiB of tokens); more go in several requests. */
  public static final int MAX_TOKENS = 16 * 1024;

  private TokenSyncDescriptor() {}

  /** Writes the header; the caller then writes {@code count} tokens with {@link #writeToken}. */
  public static ByteBuf encodeHeader(
      ByteBufAllocator alloc,
      long requestId,
      int shardId,
      int replicaNodeId,
      int sequencerNodeId,
      int incarnation,
      int count) {
    ByteBuf buf =
        FrameDescriptor.allocate(
            alloc,
            MessageType.TOKEN_SYNC,
            requestId,
            CountedArrays.bodyLength(COUNT_OFFSET, count, TOKEN_LENGTH));
    buf.writeInt(shardId);
    buf.writeInt(replicaNodeId);
    buf.writeInt(sequencerNodeId);
    buf.writeInt(incarnation);
    buf.writeInt(count);
    return buf;
  }

  public static void writeToken(ByteBuf buf, long session, long sequence) {
    CountedArrays.writeToken(buf, session, sequence);
  }

  public static void validate(ByteBuf frame) {
    CountedArrays.validate(frame, "TOKEN_SYNC", COUNT_OFFSET, TOKEN_LENGTH);
  }

  public static int shardId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + SHARD_OFFSET);
  }

  public static int replicaNodeId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + REPLICA_OFFSET);
  }

  public static int sequencerNodeId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + SEQUENCER_OFFSET);
  }

  public static int incarnation(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + INCARNATION_OFFSET);
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
