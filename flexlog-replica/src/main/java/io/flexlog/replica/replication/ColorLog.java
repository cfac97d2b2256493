package io.flexlog.replica.replication;

import io.flexlog.core.model.Sn;
import io.flexlog.replica.index.SnIndex;
import java.util.ArrayList;
import java.util.Arrays;

/**
 * What one shard replica knows about one color: its committed entries, the SNs the sequencer
 * assigned to this shard that are not committed here yet, and {@code committedThrough}, the largest
 * watermark through which every SN of this shard is committed here (DESIGN §3.2).
 *
 * <p>A read of an SN at or below {@code committedThrough} that is not in the index is a hole; above
 * it, the replica cannot decide yet.
 */
final class ColorLog {
  final int shardId;
  final int colorId;
  final SnIndex index = new SnIndex();

  /** Subscriptions streaming this log, pumped when {@code committedThrough} moves. */
  final ArrayList<Subscription> subscribers = new ArrayList<>(0);

  private long committedThrough;
  private long latestWatermark;

  /** Assigned but not committed here (the ORDER_RESPONSE came before the record), sorted. */
  private long[] awaiting = new long[4];

  private int awaitingCount;

  /**
   * SN ranges {@code (from, to]} during which this replica may have missed ORDER_RESPONSEs (it was
   * down or its sequencer link was), stored as pairs. An absent SN in such a range cannot be called
   * a hole here: only the sync phase with the other replicas could decide it.
   */
  private long[] blind = new long[4];

  private int blindCount;
  private boolean linkLost = true;

  /**
   * Epochs start at 1 (the sequencer's epoch store never issues epoch 0), so nothing at or below
   * {@code Sn.of(1, 0)} can have been missed: those SNs are holes by construction.
   */
  private long lostAt = Sn.of(1, 0);

  ColorLog(int shardId, int colorId) {
    this.shardId = shardId;
    this.colorId = colorId;
  }

  long committedThrough() {
    return committedThrough;
  }

  void awaitRecord(long sn) {
    if (awaitingCount == awaiting.length) {
      awaiting = Arrays.copyOf(awaiting, awaitingCount * 2);
    }
    int at = Arrays.binarySearch(awaiting, 0, awaitingCount, sn);
    if (at >= 0) {
      return;
    }
    int insert = -at - 1;
    System.arraycopy(awaiting, insert, awaiting, insert + 1, awaitingCount - insert);
    awaiting[insert] = sn;
    awaitingCount++;
  }

  void recordArrived(long sn) {
    int at = Arrays.binarySearch(awaiting, 0, awaitingCount, sn);
    if (at >= 0) {
      System.arraycopy(awaiting, at + 1, awaiting, at, awaitingCount - at - 1);
      awaitingCount--;
    }
  }

  /** Notes a watermark; it takes effect in {@link #advance()}, once commits are durable. */
  void onWatermark(long watermark) {
    if (linkLost) {
      linkLost = false;
      if (watermark > lostAt) {
        if (blindCount == blind.length) {
          blind = Arrays.copyOf(blind, blindCount * 2);
        }
        blind[blindCount++] = lostAt;
        blind[blindCount++] = watermark;
      }
    }
    latestWatermark = Math.max(latestWatermark, watermark);
  }

  /** The link to the sequencer broke: ORDER_RESPONSEs from now on may be missed. */
  void onLinkLost() {
    if (!linkLost) {
      linkLost = true;
      lostAt = latestWatermark;
    }
  }

  /** True when an SN not in the index may still exist elsewhere in this shard (see blind). */
  boolean isBlind(long sn) {
    for (int i = 0; i < blindCount; i += 2) {
      if (sn > blind[i] && sn <= blind[i + 1]) {
        return true;
      }
    }
    return false;
  }

  /**
   * The first blind range {@code (from, to]} with {@code to >= sn}: one that a stream of records
   * from {@code sn} on still has to cross. Returns its index for {@link #blindFrom} and {@link
   * #blindTo}, or -1 when there is none.
   */
  int blindRangeFrom(long sn) {
    for (int i = 0; i < blindCount; i += 2) {
      if (blind[i + 1] >= sn) {
        return i;
      }
    }
    return -1;
  }

  long blindFrom(int range) {
    return blind[range];
  }

  long blindTo(int range) {
    return blind[range + 1];
  }

  /**
   * Moves {@code committedThrough} as far as the latest watermark allows.
   *
   * @return true if it moved
   */
  boolean advance() {
    long bound = latestWatermark;
    if (awaitingCount > 0) {
      bound = Math.min(bound, awaiting[0] - 1);
    }
    if (bound > committedThrough) {
      committedThrough = bound;
      return true;
    }
    return false;
  }
}
