package io.flexlog.replica.replication;

import java.util.Arrays;

/**
 * Tokens of one (shard, color) collected during one event-loop turn, sent as one ORDER_REQUEST when
 * the turn ends. Reused across turns.
 */
public final class OrderRequestBatch {
  public final int shardId;
  public final int colorId;
  private long[] sessions = new long[16];
  private long[] sequences = new long[16];
  private int count;
  private int roleEpoch;

  OrderRequestBatch(int shardId, int colorId) {
    this.shardId = shardId;
    this.colorId = colorId;
  }

  void add(long session, long sequence) {
    if (count == sessions.length) {
      sessions = Arrays.copyOf(sessions, count * 2);
      sequences = Arrays.copyOf(sequences, count * 2);
    }
    sessions[count] = session;
    sequences[count] = sequence;
    count++;
  }

  /**
   * The role epoch of the shard's color in the replica's topology when the batch is sent: the
   * request is addressed to the leader of that epoch (docs/protocol.md#order_request).
   */
  public int roleEpoch() {
    return roleEpoch;
  }

  void roleEpoch(int roleEpoch) {
    this.roleEpoch = roleEpoch;
  }

  public int count() {
    return count;
  }

  public long session(int i) {
    return sessions[i];
  }

  public long sequence(int i) {
    return sequences[i];
  }

  void clear() {
    count = 0;
  }
}
