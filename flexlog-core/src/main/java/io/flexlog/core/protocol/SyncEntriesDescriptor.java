package io.flexlog.core.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * SYNC_ENTRIES body: a peer's answer to a SYNC_FETCH (docs/architecture.md#sync-phase), in
 * increasing SN order: the records of the color it has committed on the shard with SNs in {@code
 * (after, covered]}, each with its token, so the asker can commit a pending copy at the same SN or
 * store a record it never received. {@code covered} is where the answer stops (a batch is bounded
 * in bytes; the asker fetches on from there). Flags: {@link #SETTLED} when the peer could answer
 * for the whole range (otherwise the answer holds no entries and the asker asks again later),
 * {@link #MORE} when records above {@code covered} remain. {@code trim point} is the peer's trim
 * point of the color: it holds no record at or below it, so an asker that awaits such an SN learns
 * that the record is gone (docs/architecture.md#sync-phase, "Fill"). The request id travels in the
 * header.
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                        shard id (4)                           |
 *  +---------------------------------------------------------------+
 *  |                        color id (4)                           |
 *  +---------------------------------------------------------------+
 *  |               answering replica node id (4)                   |
 *  +---------------------------------------------------------------+
 *  |                          flags (4)                            |
 *  +---------------------------------------------------------------+
 *  |                       covered sn (8)                          |
 *  +---------------------------------------------------------------+
 *  |                       trim point (8)                          |
 *  +---------------------------------------------------------------+
 *  |                       record count n (4)                      |
 *  +---------------------------------------------------------------+
 *  |  n x { sn (8), token session (8), token sequence (8),         |
 *  |        payload length (4) }                                   |
 *  +---------------------------------------------------------------+
 *  |         the n payloads, concatenated in the same order        |
 * </pre>
 */
public final class SyncEntriesDescriptor {
  /** The peer answers for the whole range: nothing it lacks now can still commit there. */
  public static final int SETTLED = 1;

  /** Records above {@code covered} remain: fetch again from there. */
  public static final int MORE = 2;

  public static final int SHARD_OFFSET = 0;
  public static final int COLOR_OFFSET = 4;
  public static final int REPLICA_OFFSET = 8;
  public static final int FLAGS_OFFSET = 12;
  public static final int COVERED_OFFSET = 16;
  public static final int TRIM_POINT_OFFSET = 24;
  public static final int COUNT_OFFSET = 32;
  public static final int ENTRIES_OFFSET = 36;
  public static final int ENTRY_LENGTH = 28;

  private SyncEntriesDescriptor() {}

  /**
   * Writes the frame header and the batch header; the caller then writes {@code count} entries with
   * {@link #writeEntry} and the {@code payloadBytes} payload bytes, in order.
   */
  public static ByteBuf encodeHeader(
      ByteBufAllocator alloc,
      long requestId,
      int shardId,
      int colorId,
      int replicaNodeId,
      int flags,
      long coveredSn,
      long trimPoint,
      int count,
      int payloadBytes) {
    int table = ENTRIES_OFFSET + count * ENTRY_LENGTH;
    ByteBuf buf =
        FrameDescriptor.allocate(alloc, MessageType.SYNC_ENTRIES, requestId, table + payloadBytes);
    buf.writeInt(shardId);
    buf.writeInt(colorId);
    buf.writeInt(replicaNodeId);
    buf.writeInt(flags);
    buf.writeLong(coveredSn);
    buf.writeLong(trimPoint);
    buf.writeInt(count);
    return buf;
  }

  public static void writeEntry(
      ByteBuf buf, long sn, long tokenSession, long tokenSequence, int payloadLength) {
    buf.writeLong(sn);
    buf.writeLong(tokenSession);
    buf.writeLong(tokenSequence);
    buf.writeInt(payloadLength);
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireEntryTable(frame, "SYNC_ENTRIES", COUNT_OFFSET, ENTRIES_OFFSET, ENTRY_LENGTH, 24);
  }

  public static int shardId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + SHARD_OFFSET);
  }

  public static int colorId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COLOR_OFFSET);
  }

  public static int replicaNodeId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + REPLICA_OFFSET);
  }

  public static int flags(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + FLAGS_OFFSET);
  }

  public static long coveredSn(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + COVERED_OFFSET);
  }

  public static long trimPoint(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + TRIM_POINT_OFFSET);
  }

  public static int count(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COUNT_OFFSET);
  }

  private static int entry(ByteBuf frame, int index) {
    return FrameDescriptor.body(frame) + ENTRIES_OFFSET + index * ENTRY_LENGTH;
  }

  public static long sn(ByteBuf frame, int index) {
    return frame.getLong(entry(frame, index));
  }

  public static long tokenSession(ByteBuf frame, int index) {
    return frame.getLong(entry(frame, index) + 8);
  }

  public static long tokenSequence(ByteBuf frame, int index) {
    return frame.getLong(entry(frame, index) + 16);
  }

  public static int payloadLength(ByteBuf frame, int index) {
    return frame.getInt(entry(frame, index) + 24);
  }

  /** Index in {@code frame} of the first payload byte. */
  public static int payloadsStart(ByteBuf frame) {
    return FrameDescriptor.body(frame) + ENTRIES_OFFSET + count(frame) * ENTRY_LENGTH;
  }
}
