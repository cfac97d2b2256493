package io.flexlog.core.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * TOKEN_SYNC_RESPONSE body: the answering replica's SN for each token of a TOKEN_SYNC, in request
 * order; 0 ({@code Sn.NONE}) where it knows no SN for the token. The request id travels in the
 * frame header.
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                        shard id (4)                           |
 *  +---------------------------------------------------------------+
 *  |                answering replica node id (4)                  |
 *  +---------------------------------------------------------------+
 *  |                        sn count n (4)                         |
 *  +---------------------------------------------------------------+
 *  |  n x sn (8)                                                   |
 * </pre>
 */
public final class TokenSyncResponseDescriptor {
  public static final int SHARD_OFFSET = 0;
  public static final int REPLICA_OFFSET = 4;
  public static final int COUNT_OFFSET = 8;
  public static final int SNS_OFFSET = 12;
  public static final int SN_LENGTH = CountedArrays.SN_LENGTH;

  private TokenSyncResponseDescriptor() {}

  /** Writes the header; the caller then writes {@code count} SNs with {@link ByteBuf#writeLong}. */
  public static ByteBuf encodeHeader(
      ByteBufAllocator alloc, long requestId, int shardId, int replicaNodeId, int count) {
    ByteBuf buf =
        FrameDescriptor.allocate(
            alloc,
            MessageType.TOKEN_SYNC_RESPONSE,
            requestId,
            CountedArrays.bodyLength(COUNT_OFFSET, count, SN_LENGTH));
    buf.writeInt(shardId);
    buf.writeInt(replicaNodeId);
    buf.writeInt(count);
    return buf;
  }

  public static void validate(ByteBuf frame) {
    CountedArrays.validate(frame, "TOKEN_SYNC_RESPONSE", COUNT_OFFSET, SN_LENGTH);
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

  public static long sn(ByteBuf frame, int index) {
    return CountedArrays.sn(frame, COUNT_OFFSET, index);
  }
}
