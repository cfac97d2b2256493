package io.flexlog.replica.replication;

import io.flexlog.core.model.Sn;
import io.flexlog.replica.index.SnIndex;
import java.util.ArrayList;
import java.util.Arrays;

/**
 * What one shard replica knows about one color: its committed entries, the SNs the sequencer
 * assigned to this shard that are not committed here yet, and {@code committedThrough}, the largest
 * watermark through which every SN of this shard is committed here
 * (docs/architecture.md#watermarks).
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

  /**
   * Join marks (docs/architecture.md#subscribe) in arrival order: {@code (topology version, mark
   * SN)} pairs. Mark number {@code markBase + i} is at index {@code i}; subscriptions count marks
   * by that number.
   */
  private long[] markVersions = new long[0];

  private long[] markSns = new long[0];
  private int markCount;
  private long markBase;

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

  /** The most marks kept once every subscription is past the oldest ones (see {@link #addMark}). */
  static final int RETAINED_MARKS = 16;

  /**
   * Notes a join mark from the sequencer; a repeated version is ignored. Marks that every current
   * subscription has delivered and passed are dropped once more than {@link #RETAINED_MARKS} are
   * kept (the rest stay for subscriptions opened later from lower SNs, whose client may still have
   * an older topology).
   *
   * @return true if the mark is new
   */
  boolean addMark(long topologyVersion, long markSn) {
    for (int i = 0; i < markCount; i++) {
      if (markVersions[i] == topologyVersion) {
        return false;
      }
    }
    if (markCount == markSns.length) {
      markSns = Arrays.copyOf(markSns, Math.max(4, markCount * 2));
      markVersions = Arrays.copyOf(markVersions, markSns.length);
    }
    markVersions[markCount] = topologyVersion;
    markSns[markCount] = markSn;
    markCount++;
    dropPassedMarks();
    return true;
  }

  private void dropPassedMarks() {
    int drop = 0;
    while (markCount - drop > RETAINED_MARKS && passedByAll(markBase + drop, markSns[drop])) {
      drop++;
    }
    if (drop > 0) {
      System.arraycopy(markSns, drop, markSns, 0, markCount - drop);
      System.arraycopy(markVersions, drop, markVersions, 0, markCount - drop);
      markCount -= drop;
      markBase += drop;
    }
  }

  private boolean passedByAll(long mark, long markSn) {
    for (int i = 0; i < subscribers.size(); i++) {
      Subscription s = subscribers.get(i);
      if (s.nextMark <= mark || s.nextSn <= markSn) {
        return false;
      }
    }
    return true;
  }

  /** The number of the oldest mark kept. */
  long firstMark() {
    return markBase;
  }

  /** One past the number of the newest mark. */
  long endMark() {
    return markBase + markCount;
  }

  long markVersion(long mark) {
    return markVersions[(int) (mark - markBase)];
  }

  long markSn(long mark) {
    return markSns[(int) (mark - markBase)];
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
