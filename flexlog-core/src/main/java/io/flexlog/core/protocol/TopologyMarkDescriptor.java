package io.flexlog.core.protocol;

import io.flexlog.core.error.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * TOPOLOGY_MARK body: the shard set of a color's subtree grew (AddColor of a descendant with new
 * shards, docs/architecture.md#join-marks). The role of the color took the <b>join mark</b> {@code
 * markSn}, the next SN it issues: every SN it issued before is below the mark, every SN it may give
 * to a shard of topology {@code version} that was not in the subtree before is at or above it.
 *
 * <p>One layout on three hops, always on the FIFO connection that carries the color's watermarks,
 * so it arrives before any watermark that reaches the mark:
 *
 * <ul>
 *   <li>sequencer to replica: request id 0, scope = the color id;
 *   <li>parent sequencer to child: request id 0, scope = the tree edge the mark descends (the
 *       child's color, as the via color of TREE_WATERMARK);
 *   <li>replica to subscriber: request id = the subscription id, scope = the shard id; sent before
 *       any record or progress of the subscription at or above the mark.
 * </ul>
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                        color id (4)                           |
 *  +---------------------------------------------------------------+
 *  |             scope: color, via color or shard id (4)           |
 *  +---------------------------------------------------------------+
 *  |                  topology version, >= 1 (8)                   |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                      mark sn, > 0 (8)                         |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * All fields big-endian, like every frame.
 */
public final class TopologyMarkDescriptor {
  public static final int COLOR_OFFSET = 0;
  public static final int SCOPE_OFFSET = 4;
  public static final int VERSION_OFFSET = 8;
  public static final int MARK_SN_OFFSET = 16;
  public static final int BODY_LENGTH = 24;

  private TopologyMarkDescriptor() {}

  public static ByteBuf encode(
      ByteBufAllocator alloc,
      long requestId,
      int colorId,
      int scopeId,
      long topologyVersion,
      long markSn) {
    ByteBuf buf =
        FrameDescriptor.allocate(alloc, MessageType.TOPOLOGY_MARK, requestId, BODY_LENGTH);
    buf.writeInt(colorId);
    buf.writeInt(scopeId);
    buf.writeLong(topologyVersion);
    buf.writeLong(markSn);
    return buf;
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireLength(frame, "TOPOLOGY_MARK", BODY_LENGTH);
    if (topologyVersion(frame) < 1) {
      throw new ProtocolException(
          "TOPOLOGY_MARK topology version must be >= 1, got " + topologyVersion(frame));
    }
    if (markSn(frame) < 1) {
      throw new ProtocolException("TOPOLOGY_MARK mark sn must be > 0, got " + markSn(frame));
    }
  }

  public static int colorId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COLOR_OFFSET);
  }

  public static int scopeId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + SCOPE_OFFSET);
  }

  public static long topologyVersion(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + VERSION_OFFSET);
  }

  public static long markSn(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + MARK_SN_OFFSET);
  }
}
