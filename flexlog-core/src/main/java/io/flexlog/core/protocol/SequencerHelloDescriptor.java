package io.flexlog.core.protocol;

import io.flexlog.core.error.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * SEQUENCER_HELLO body: the first frame a child sequencer node sends on its connection to a parent
 * sequencer node. It names the child and its incarnation, so the parent routes range responses and
 * tree watermarks to this connection and deduplicates re-sent range requests per incarnation.
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                    child node id (4)                          |
 *  +---------------------------------------------------------------+
 *  |        child incarnation: its epoch at start (4)              |
 *  +---------------------------------------------------------------+
 *  |                 child topology version (8)                    |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>The incarnation is the child's durable epoch when it started ({@code >= 1}); a restarted child
 * presents a larger one, which tells the parent to forget the range requests of the earlier one.
 * The topology version is informational (logged when parent and child disagree).
 */
public final class SequencerHelloDescriptor {
  public static final int NODE_OFFSET = 0;
  public static final int INCARNATION_OFFSET = 4;
  public static final int TOPOLOGY_VERSION_OFFSET = 8;
  public static final int BODY_LENGTH = 16;

  private SequencerHelloDescriptor() {}

  public static ByteBuf encode(
      ByteBufAllocator alloc, int childNodeId, int incarnation, long topologyVersion) {
    ByteBuf buf = FrameDescriptor.allocate(alloc, MessageType.SEQUENCER_HELLO, 0L, BODY_LENGTH);
    buf.writeInt(childNodeId);
    buf.writeInt(incarnation);
    buf.writeLong(topologyVersion);
    return buf;
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireLength(frame, "SEQUENCER_HELLO", BODY_LENGTH);
    if (incarnation(frame) < 1) {
      throw new ProtocolException(
          "SEQUENCER_HELLO incarnation must be >= 1, got " + incarnation(frame));
    }
  }

  public static int childNodeId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + NODE_OFFSET);
  }

  public static int incarnation(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + INCARNATION_OFFSET);
  }

  public static long topologyVersion(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + TOPOLOGY_VERSION_OFFSET);
  }
}
