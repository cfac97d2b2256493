package io.flexlog.core.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * HELLO body: the first frame a replica node sends on its connection to a sequencer, naming the
 * shards whose ORDER_RESPONSE and WATERMARK broadcasts it wants on this connection.
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                    replica node id (4)                        |
 *  +---------------------------------------------------------------+
 *  |                     shard count n (4)                         |
 *  +---------------------------------------------------------------+
 *  |                   n x shard id (4)                            |
 * </pre>
 */
public final class HelloDescriptor {
  public static final int NODE_OFFSET = 0;
  public static final int COUNT_OFFSET = 4;
  public static final int SHARDS_OFFSET = 8;

  private HelloDescriptor() {}

  public static ByteBuf encode(ByteBufAllocator alloc, int replicaNodeId, int[] shardIds) {
    ByteBuf buf =
        FrameDescriptor.allocate(alloc, MessageType.HELLO, 0L, SHARDS_OFFSET + 4 * shardIds.length);
    buf.writeInt(replicaNodeId);
    buf.writeInt(shardIds.length);
    for (int shardId : shardIds) {
      buf.writeInt(shardId);
    }
    return buf;
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireAtLeast(frame, "HELLO", SHARDS_OFFSET);
    Bodies.requireCount(frame, "HELLO", COUNT_OFFSET, SHARDS_OFFSET, 4);
  }

  public static int replicaNodeId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + NODE_OFFSET);
  }

  public static int[] shardIds(ByteBuf frame) {
    int count = frame.getInt(FrameDescriptor.body(frame) + COUNT_OFFSET);
    int[] ids = new int[count];
    for (int i = 0; i < count; i++) {
      ids[i] = frame.getInt(FrameDescriptor.body(frame) + SHARDS_OFFSET + 4 * i);
    }
    return ids;
  }
}
