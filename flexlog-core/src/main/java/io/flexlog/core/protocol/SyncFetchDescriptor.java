package io.flexlog.core.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * SYNC_FETCH body: a replica asks a peer replica of the same shard for the records of a color it
 * has committed with SNs in {@code (after, through]}, in the sync phase that closes a blind range
 * (docs/architecture.md#sync-phase). The asker names the sequencer node of the shard and the
 * incarnation its own link reached: the peer answers as <em>settled</em> only once no order
 * response of an older process can still reach it and every SN up to {@code through} it could still
 * commit is committed. The request id travels in the frame header.
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                        shard id (4)                           |
 *  +---------------------------------------------------------------+
 *  |                        color id (4)                           |
 *  +---------------------------------------------------------------+
 *  |                   sequencer node id (4)                       |
 *  +---------------------------------------------------------------+
 *  |                      incarnation (4)                          |
 *  +---------------------------------------------------------------+
 *  |                 after sn (8): exclusive start                 |
 *  +---------------------------------------------------------------+
 *  |                through sn (8): inclusive end                  |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class SyncFetchDescriptor {
  public static final int SHARD_OFFSET = 0;
  public static final int COLOR_OFFSET = 4;
  public static final int SEQUENCER_OFFSET = 8;
  public static final int INCARNATION_OFFSET = 12;
  public static final int AFTER_OFFSET = 16;
  public static final int THROUGH_OFFSET = 24;
  public static final int BODY_LENGTH = 32;

  private SyncFetchDescriptor() {}

  public static ByteBuf encode(
      ByteBufAllocator alloc,
      long requestId,
      int shardId,
      int colorId,
      int sequencerNodeId,
      int incarnation,
      long afterSn,
      long throughSn) {
    ByteBuf buf = FrameDescriptor.allocate(alloc, MessageType.SYNC_FETCH, requestId, BODY_LENGTH);
    buf.writeInt(shardId);
    buf.writeInt(colorId);
    buf.writeInt(sequencerNodeId);
    buf.writeInt(incarnation);
    buf.writeLong(afterSn);
    buf.writeLong(throughSn);
    return buf;
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireLength(frame, "SYNC_FETCH", BODY_LENGTH);
  }

  public static int shardId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + SHARD_OFFSET);
  }

  public static int colorId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COLOR_OFFSET);
  }

  public static int sequencerNodeId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + SEQUENCER_OFFSET);
  }

  public static int incarnation(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + INCARNATION_OFFSET);
  }

  public static long afterSn(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + AFTER_OFFSET);
  }

  public static long throughSn(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + THROUGH_OFFSET);
  }
}
