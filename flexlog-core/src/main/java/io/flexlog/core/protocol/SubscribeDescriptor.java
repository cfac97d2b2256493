package io.flexlog.core.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * SUBSCRIBE body: a client asks one replica to stream the committed records of a color that one
 * shard holds, in SN order, starting with the first record whose SN is {@code >= from sn}, then
 * live as records commit (docs/architecture.md#subscribe). The frame's request id is the
 * subscription id, chosen by the client and unique on its connection; every later frame of the
 * subscription carries it.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                          color id                             |
 *  +---------------------------------------------------------------+
 *  |                          shard id                             |
 *  +---------------------------------------------------------------+
 *  |                          from sn                              |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                   initial credit (bytes)                      |
 *  |                                                               |
 *  +---------------+-----------------------------------------------+
 *  |    flags      |                  reserved                     |
 *  +---------------+-----------------------------------------------+
 * </pre>
 *
 * <p>Credit: the replica sends a record while the subscription's credit is positive and deducts
 * {@link SubscribeRecordsDescriptor#recordCost} per record, so it overshoots by at most one record;
 * SUBSCRIBE_CREDIT frames add to it.
 */
public final class SubscribeDescriptor {
  public static final int COLOR_OFFSET = 0;
  public static final int SHARD_OFFSET = 4;
  public static final int FROM_SN_OFFSET = 8;
  public static final int CREDIT_OFFSET = 16;
  public static final int FLAGS_OFFSET = 24;
  public static final int BODY_LENGTH = 28;

  /**
   * Flag: serve even if this replica may have missed records of the range after a restart or a lost
   * sequencer link (it has not synchronised with the other replicas of the shard). Without it such
   * a replica refuses with NOT_READY, so that the client tries another replica first.
   */
  public static final byte ACCEPT_UNSYNCED = 0x01;

  /**
   * Flag: refuse with TRIMMED if the start SN lies at or below the color's trim point (the
   * subscriber asked for records that are gone). Without it the stream starts after the trim point:
   * how a subscription from 0, or one resuming after a failover, skips what was trimmed.
   */
  public static final byte REFUSE_TRIMMED = 0x02;

  private SubscribeDescriptor() {}

  public static ByteBuf encode(
      ByteBufAllocator alloc,
      long subscriptionId,
      int colorId,
      int shardId,
      long fromSn,
      long initialCredit,
      byte flags) {
    ByteBuf buf =
        FrameDescriptor.allocate(alloc, MessageType.SUBSCRIBE, subscriptionId, BODY_LENGTH);
    buf.writeInt(colorId);
    buf.writeInt(shardId);
    buf.writeLong(fromSn);
    buf.writeLong(initialCredit);
    buf.writeByte(flags);
    buf.writeZero(3);
    return buf;
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireLength(frame, "SUBSCRIBE", BODY_LENGTH);
  }

  public static int colorId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + COLOR_OFFSET);
  }

  public static int shardId(ByteBuf frame) {
    return frame.getInt(FrameDescriptor.body(frame) + SHARD_OFFSET);
  }

  public static long fromSn(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + FROM_SN_OFFSET);
  }

  public static long initialCredit(ByteBuf frame) {
    return frame.getLong(FrameDescriptor.body(frame) + CREDIT_OFFSET);
  }

  public static byte flags(ByteBuf frame) {
    return frame.getByte(FrameDescriptor.body(frame) + FLAGS_OFFSET);
  }
}
