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
