package io.flexlog.core.protocol;

import io.flexlog.core.error.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * APPEND_BATCH body: a client asks a replica to store several records of one color on one shard
 * (the paper's {@code Append(r[], c)}). Every record keeps its own token (the batch's session id
 * and the record's own sequence), so replicas and sequencers deduplicate record by record and a
 * retried batch never stores a second copy of any record. The same frame goes to every replica of
 * the shard; a retry may carry a subset of the records.
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
 *  |                          shard id                             |
 *  +---------------------------------------------------------------+
 *  |                     record count n (>= 1)                     |
 *  +---------------------------------------------------------------+
 *  |     n x { token sequence (8), payload length (4) }            |
 *  +---------------------------------------------------------------+
 *  |         the n payloads, concatenated in the same order        |
 * </pre>
 *
 * <p>The payloads follow the entry table so that the client writes them as retained slices of its
 * buffers after one header buffer, and the replica stores slices of the frame, without copying.
 */
public final class AppendBatchDescriptor {
  public static final int TOKEN_SESSION_OFFSET = 0;
  public static final int COLOR_OFFSET = 8;
  public static final int SHARD_OFFSET = 12;
  public static final int COUNT_OFFSET = 16;
  public static final int ENTRIES_OFFSET = 20;
  public static final int ENTRY_LENGTH = 12;

  /** Most records in one batch frame. */
  public static final int MAX_RECORDS = 65536;

  private AppendBatchDescriptor() {}

  /**
   * Writes the frame header and the batch header. The caller then writes {@code count} entries with
   * {@link #writeEntry}, then the {@code payloadBytes} payload bytes as separate buffers on the
   * same channel.
   */
  public static ByteBuf encodeHeader(
      ByteBufAllocator alloc,
      long requestId,
      long tokenSession,
      int colorId,
      int shardId,
      int count,
      int payloadBytes) {
    int table = ENTRIES_OFFSET + count * ENTRY_LENGTH;
    ByteBuf buf =
        FrameDescriptor.allocate(
            alloc, MessageType.APPEND_BATCH, requestId, table + payloadBytes, table);
    buf.writeLong(tokenSession);
    buf.writeInt(colorId);
    buf.writeInt(shardId);
    buf.writeInt(count);
    return buf;
  }

  public static void writeEntry(ByteBuf buf, long tokenSequence, int payloadLength) {
    buf.writeLong(tokenSequence);
    buf.writeInt(payloadLength);
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireAtLeast(frame, "APPEND_BATCH", ENTRIES_OFFSET);
    int count = frame.getInt(FrameDescriptor.body(frame) + COUNT_OFFSET);
    if (count < 1 || count > MAX_RECORDS) {
      throw new ProtocolException(
          "APPEND_BATCH count " + count + " outside [1, " + MAX_RECORDS + "]");
    }
    Bodies.requireEntryTable(frame, "APPEND_BATCH", COUNT_OFFSET, ENTRIES_OFFSET, ENTRY_LENGTH, 8);
  }

  public static long tokenSession(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + TOKEN_SESSION_OFFSET);
  }

  public static int colorId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COLOR_OFFSET);
  }

  public static int shardId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + SHARD_OFFSET);
  }

  public static int count(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COUNT_OFFSET);
  }

  public static long tokenSequence(ByteBuf frame, int index) {
    return frame.getLong(FrameDescriptor.body(frame) + ENTRIES_OFFSET + index * ENTRY_LENGTH);
  }

  public static int payloadLength(ByteBuf frame, int index) {
    return frame.getInt(FrameDescriptor.body(frame) + ENTRIES_OFFSET + index * ENTRY_LENGTH + 8);
  }

  /**
   * Index in {@code frame} of the first payload byte; record {@code i}'s payload starts after the
   * payloads of records {@code 0..i-1}.
   */
  public static int payloadsStart(ByteBuf frame) {
    return FrameDescriptor.body(frame) + ENTRIES_OFFSET + count(frame) * ENTRY_LENGTH;
  }
}
