package io.flexlog.core.protocol;

import io.flexlog.core.error.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * APPEND_BATCH_ACK body: one replica's outcome for some records of an APPEND_BATCH, each either
 * committed at an SN or refused with an error code (only that record fails; the others of the batch
 * are unaffected). The request id is the batch's. A replica acknowledges the records it committed
 * in one turn in one frame; records that are not in a frame have no outcome yet.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                      token: session id                        |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                          color id                             |
 *  +---------------------------------------------------------------+
 *  |                       replica node id                         |
 *  +---------------------------------------------------------------+
 *  |                         entry count n                         |
 *  +---------------------------------------------------------------+
 *  |  n x { token sequence (8), SN (8), error code (2), zero (2) } |
 * </pre>
 *
 * <p>An entry has either an SN (positive) and error code 0, or SN 0 and a non-zero error code.
 */
public final class AppendBatchAckDescriptor {
  public static final int TOKEN_SESSION_OFFSET = 0;
  public static final int COLOR_OFFSET = 8;
  public static final int REPLICA_OFFSET = 12;
  public static final int COUNT_OFFSET = 16;
  public static final int ENTRIES_OFFSET = 20;
  public static final int ENTRY_LENGTH = 20;

  private static final int ENTRY_SN = 8;
  private static final int ENTRY_CODE = 16;

  private AppendBatchAckDescriptor() {}

  /** Writes the frame and batch header; the caller writes exactly {@code count} entries. */
  public static ByteBuf encodeHeader(
      ByteBufAllocator alloc,
      long requestId,
      long tokenSession,
      int colorId,
      int replicaNodeId,
      int count) {
    ByteBuf buf =
        FrameDescriptor.allocate(
            alloc, MessageType.APPEND_BATCH_ACK, requestId, ENTRIES_OFFSET + count * ENTRY_LENGTH);
    buf.writeLong(tokenSession);
    buf.writeInt(colorId);
    buf.writeInt(replicaNodeId);
    buf.writeInt(count);
    return buf;
  }

  /** A committed record. */
  public static void writeCommitted(ByteBuf buf, long tokenSequence, long sn) {
    buf.writeLong(tokenSequence);
    buf.writeLong(sn);
    buf.writeInt(0);
  }

  /** A refused record; {@code errorCode} is an {@code ErrorCode} wire value. */
  public static void writeRefused(ByteBuf buf, long tokenSequence, int errorCode) {
    buf.writeLong(tokenSequence);
    buf.writeLong(0L);
    buf.writeShort(errorCode);
    buf.writeShort(0);
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireAtLeast(frame, "APPEND_BATCH_ACK", ENTRIES_OFFSET);
    int count =
        Bodies.requireCount(frame, "APPEND_BATCH_ACK", COUNT_OFFSET, ENTRIES_OFFSET, ENTRY_LENGTH);
    for (int i = 0; i < count; i++) {
      long sn = sn(frame, i);
      int code = errorCode(frame, i);
      if (code == 0 ? sn <= 0 : sn != 0) {
        throw new ProtocolException(
            "APPEND_BATCH_ACK entry " + i + " has SN " + sn + " and error code " + code);
      }
    }
  }

  public static long tokenSession(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + TOKEN_SESSION_OFFSET);
  }

  public static int colorId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COLOR_OFFSET);
  }

  public static int replicaNodeId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + REPLICA_OFFSET);
  }

  public static int count(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COUNT_OFFSET);
  }

  public static long tokenSequence(ByteBuf frame, int index) {
    return frame.getLong(entry(frame, index));
  }

  /** The record's SN, 0 if it was refused. */
  public static long sn(ByteBuf frame, int index) {
    return frame.getLong(entry(frame, index) + ENTRY_SN);
  }

  /** The refusal's error code, 0 if the record is committed. */
  public static int errorCode(ByteBuf frame, int index) {
    return frame.getUnsignedShort(entry(frame, index) + ENTRY_CODE);
  }

  private static int entry(ByteBuf frame, int index) {
    return FrameDescriptor.body(frame) + ENTRIES_OFFSET + index * ENTRY_LENGTH;
  }
}
