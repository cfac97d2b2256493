package io.flexlog.core.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * WELCOME body: a sequencer node's answer to a HELLO it accepted, sent before any watermark on the
 * connection. The incarnation identifies the sequencer process (its durable epoch at start, larger
 * after every restart), so replicas can tell whether two links reach the same process
 * (docs/architecture.md#token-sync, token sync).
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                   sequencer node id (4)                       |
 *  +---------------------------------------------------------------+
 *  |                      incarnation (4)                          |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class WelcomeDescriptor {
  public static final int NODE_OFFSET = 0;
  public static final int INCARNATION_OFFSET = 4;
  public static final int LENGTH = 8;

  private WelcomeDescriptor() {}

  public static ByteBuf encode(ByteBufAllocator alloc, int sequencerNodeId, int incarnation) {
    ByteBuf buf = FrameDescriptor.allocate(alloc, MessageType.WELCOME, 0L, LENGTH);
    buf.writeInt(sequencerNodeId);
    buf.writeInt(incarnation);
    return buf;
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireLength(frame, "WELCOME", LENGTH);
  }

  public static int sequencerNodeId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + NODE_OFFSET);
  }

  public static int incarnation(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + INCARNATION_OFFSET);
  }
}
