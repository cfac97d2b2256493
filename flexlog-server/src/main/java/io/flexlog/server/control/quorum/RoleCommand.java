package io.flexlog.server.control.quorum;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Layout of the role entries of the metadata quorum's log and of their replies (big-endian), beside
 * the topology entries of {@link MetadataCommand} (same magic and kind byte).
 *
 * <pre>
 *  entry: | magic 'FLXQ' (4) | kind (1) | color id (4) | node id (4) | epoch (4) | renewals (8) |
 *         | minimum epoch (4) |
 *  reply: | outcome (1) | color id (4) | leader node id (4) | epoch (4) | renewals (8) |
 * </pre>
 *
 * <p>{@code RENEW}: node {@code node id} renews its lease of epoch {@code epoch}; applies only
 * while the lease is exactly that. {@code TAKE}: node {@code node id} takes the role; applies only
 * while the lease is still the one the proposer saw ({@code epoch} and {@code renewals}; epoch -1:
 * no lease yet), and makes the role's epoch larger than the old one and at least {@code minimum
 * epoch}. The reply carries the lease after the entry (leader -1 when there is none).
 */
public final class RoleCommand {
  static final int COLOR_OFFSET = MetadataCommand.HEADER_LENGTH - 8;
  static final int NODE_OFFSET = COLOR_OFFSET + 4;
  static final int EPOCH_OFFSET = NODE_OFFSET + 4;
  static final int RENEWALS_OFFSET = EPOCH_OFFSET + 4;
  static final int MIN_EPOCH_OFFSET = RENEWALS_OFFSET + 8;
  static final int LENGTH = MIN_EPOCH_OFFSET + 4;
  static final int REPLY_LENGTH = 1 + 20;

  /** A decoded role entry. */
  record Entry(
      MetadataCommand.Kind kind, int colorId, int nodeId, int epoch, long renewals, int minEpoch) {}

  /** A decoded reply: whether the entry applied, and the lease afterwards (null: none). */
  public record Reply(boolean applied, RoleLease lease) {}

  private RoleCommand() {}

  static byte[] encode(
      MetadataCommand.Kind kind, int colorId, int nodeId, int epoch, long renewals, int minEpoch) {
    ByteBuffer buf = ByteBuffer.allocate(LENGTH).order(ByteOrder.BIG_ENDIAN);
    buf.putInt(0, MetadataCommand.MAGIC);
    buf.put(MetadataCommand.KIND_OFFSET, (byte) kind.ordinal());
    buf.putInt(COLOR_OFFSET, colorId);
    buf.putInt(NODE_OFFSET, nodeId);
    buf.putInt(EPOCH_OFFSET, epoch);
    buf.putLong(RENEWALS_OFFSET, renewals);
    buf.putInt(MIN_EPOCH_OFFSET, minEpoch);
    return buf.array();
  }

  /** Decodes a role entry whose kind {@link MetadataCommand#kind} already read. */
  static Entry decode(MetadataCommand.Kind kind, ByteBuffer data) {
    ByteBuffer buf = data.slice().order(ByteOrder.BIG_ENDIAN);
    if (buf.remaining() != LENGTH) {
      throw new IllegalArgumentException(
          "role entry of " + buf.remaining() + " bytes, expected " + LENGTH);
    }
    return new Entry(
        kind,
        buf.getInt(COLOR_OFFSET),
        buf.getInt(NODE_OFFSET),
        buf.getInt(EPOCH_OFFSET),
        buf.getLong(RENEWALS_OFFSET),
        buf.getInt(MIN_EPOCH_OFFSET));
  }

  static byte[] encodeReply(boolean applied, int colorId, RoleLease lease) {
    ByteBuffer buf = ByteBuffer.allocate(REPLY_LENGTH).order(ByteOrder.BIG_ENDIAN);
    buf.put(0, (byte) (applied ? 0 : 1));
    buf.putInt(1, colorId);
    buf.putInt(5, lease == null ? -1 : lease.leaderNodeId());
    buf.putInt(9, lease == null ? 0 : lease.epoch());
    buf.putLong(13, lease == null ? 0 : lease.renewals());
    return buf.array();
  }

  static Reply decodeReply(ByteBuffer data) {
    ByteBuffer buf = data.slice().order(ByteOrder.BIG_ENDIAN);
    if (buf.remaining() != REPLY_LENGTH) {
      throw new IllegalArgumentException(
          "role reply of " + buf.remaining() + " bytes, expected " + REPLY_LENGTH);
    }
    int leader = buf.getInt(5);
    RoleLease lease =
        leader < 0 ? null : new RoleLease(buf.getInt(1), leader, buf.getInt(9), buf.getLong(13));
    return new Reply(buf.get(0) == 0, lease);
  }
}
