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

  /** Assigned but not committed here (the ORDER_RESPONSE came before the record). */
  private final AwaitedSns awaiting = new AwaitedSns();

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

  /**
   * The SN up to which this log is complete: every SN of the shard at or below it is in the index
   * or a hole ({@code committedThrough}, but not into an open blind range). Only grows; a replica
   * keeps it durable as its sync point (docs/architecture.md#sync-phase).
   */
  long decidedThrough() {
    return blindCount > 0 ? Math.min(committedThrough, firstBlindFrom()) : committedThrough;
  }

  /**
   * At start, before any watermark: the log was complete up to {@code syncPoint} (its durable sync
   * point, checked against the recovered log), so SNs there are decided at once and the blind range
   * the first watermark opens starts there instead of at epoch 1.
   */
  void restoreSyncPoint(long syncPoint) {
    if (!linkLost || latestWatermark != 0) {
      throw new IllegalStateException(
          "a sync point can only be restored before the first watermark");
    }
    lostAt = Math.max(lostAt, syncPoint);
    committedThrough = Math.max(committedThrough, syncPoint);
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

  void awaitRecord(long sn, long nowNs) {
    awaiting.add(sn, nowNs);
  }

  /** The smallest SN assigned to this shard whose record has not arrived, or 0 if none. */
  long firstAwaiting() {
    return awaiting.first();
  }

  /** Since when the smallest awaited SN is awaited ({@link ReplicaRuntime#nanoTime}). */
  long firstAwaitingSince() {
    return awaiting.firstSince();
  }

  /** See {@link AwaitedSns#overdueThrough}. */
  long overdueThrough(long deadlineNs, int maxScan) {
    return awaiting.overdueThrough(deadlineNs, maxScan);
  }

  boolean awaits(long sn) {
    return awaiting.contains(sn);
  }

  /** The awaited SN a sync-phase fill watches, and since when (see {@code RangeSync}). */
  long fillSn;

  boolean filling;

  /**
   * The color was trimmed through {@code trimPoint}: no record there will be read again, so none is
   * awaited any longer (docs/architecture.md#trim). A replica that was told an SN whose record
   * never reached it, and whose peers then trimmed that record, would otherwise wait for it for
   * ever: its fill finds the record nowhere, and {@code committedThrough}, with its reads and
   * subscriptions, stays below it.
   *
   * @return how many awaited SNs were dropped
   */
  int stopAwaitingThrough(long trimPoint) {
    return awaiting.removeThrough(trimPoint);
  }

  void recordArrived(long sn) {
    awaiting.remove(sn);
  }

  /**
   * Notes a watermark; it takes effect in {@link #advance()}, once commits are durable.
   *
   * @return true if it opened a blind range (the first watermark after a lost link, above the SN
   *     where the link was lost): the sync phase has to close it
   */
  boolean onWatermark(long watermark) {
    boolean opened = false;
    if (linkLost) {
      linkLost = false;
      if (watermark > lostAt) {
        if (blindCount == blind.length) {
          blind = Arrays.copyOf(blind, blindCount * 2);
        }
        blind[blindCount++] = lostAt;
        blind[blindCount++] = watermark;
        opened = true;
      }
    }
    latestWatermark = Math.max(latestWatermark, watermark);
    return opened;
  }

  /** The link to the sequencer broke: ORDER_RESPONSEs from now on may be missed. */
  void onLinkLost() {
    if (!linkLost) {
      linkLost = true;
      // Nothing at or below committedThrough can be missed; it exceeds the watermark only after a
      // restored sync point above the first watermarks of the new process.
      lostAt = Math.max(latestWatermark, committedThrough);
    }
    fetching = false;
  }

  /**
   * The latest watermark received on the current sequencer link, or -1 while the link is down or
   * has not delivered one yet (every order response with a smaller SN on that link was received).
   */
  long watermarkOnLink() {
    return linkLost ? -1 : latestWatermark;
  }

  /**
   * True while SNs of this log may exist on other replicas that this one cannot know about: its
   * sequencer link is down (or has not delivered a watermark yet) or a blind range is open. New
   * tokens are not ordered meanwhile (docs/architecture.md#sync-phase).
   */
  boolean syncing() {
    return linkLost || blindCount > 0;
  }

  boolean hasBlindRanges() {
    return blindCount > 0;
  }

  /** A sync-phase fetch is running for the open blind ranges (see {@code RangeSync}). */
  boolean fetching;

  /** The start of the first open blind range (exclusive); only with {@link #hasBlindRanges}. */
  long firstBlindFrom() {
    long from = Long.MAX_VALUE;
    for (int i = 0; i < blindCount; i += 2) {
      from = Math.min(from, blind[i]);
    }
    return from;
  }

  /** The end of the last open blind range (inclusive); only with {@link #hasBlindRanges}. */
  long lastBlindTo() {
    long to = Long.MIN_VALUE;
    for (int i = 1; i < blindCount; i += 2) {
      to = Math.max(to, blind[i]);
    }
    return to;
  }

  /**
   * The sync phase fetched every record of this log that a peer holds up to {@code through}: closes
   * every blind range that ends at or below it. An absent SN there is a hole from now on.
   */
  void closeBlindThrough(long through) {
    int kept = 0;
    for (int i = 0; i < blindCount; i += 2) {
      if (blind[i + 1] > through) {
        blind[kept++] = blind[i];
        blind[kept++] = blind[i + 1];
      }
    }
    blindCount = kept;
  }

  /**
   * How far a stream of records from {@code nextSn} may go: {@code committedThrough}, but not into
   * an open blind range, where records this replica has not received yet may still be fetched.
   */
  long sendLimit(long nextSn) {
    long limit = committedThrough;
    for (int i = 0; i < blindCount; i += 2) {
      if (blind[i + 1] >= nextSn) {
        limit = Math.min(limit, blind[i]);
      }
    }
    return limit;
  }

  // The sequencer process (node, incarnation) of the last watermark: where order requests go.
  private int orderingSequencer = -1;
  private int orderingIncarnation;

  void orderingProcess(int sequencerId, int incarnation) {
    orderingSequencer = sequencerId;
    orderingIncarnation = incarnation;
  }

  int orderingSequencer() {
    return orderingSequencer;
  }

  int orderingIncarnation() {
    return orderingIncarnation;
  }

  // New tokens held while syncing, ordered once the log is synchronised.
  private long[] heldSessions = new long[0];
  private long[] heldSequences = new long[0];
  private int heldCount;

  void hold(long session, long sequence) {
    if (heldCount == heldSessions.length) {
      heldSessions = Arrays.copyOf(heldSessions, Math.max(16, heldCount * 2));
      heldSequences = Arrays.copyOf(heldSequences, heldSessions.length);
    }
    heldSessions[heldCount] = session;
    heldSequences[heldCount] = sequence;
    heldCount++;
  }

  int heldCount() {
    return heldCount;
  }

  long[] heldSessions() {
    return heldSessions;
  }

  long[] heldSequences() {
    return heldSequences;
  }

  void clearHeld() {
    heldCount = 0;
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
   * Moves {@code committedThrough} as far as the latest watermark allows.
   *
   * @return true if it moved
   */
  boolean advance() {
    long bound = latestWatermark;
    if (!awaiting.isEmpty()) {
      bound = Math.min(bound, awaiting.first() - 1);
    }
    if (bound > committedThrough) {
      committedThrough = bound;
      return true;
    }
    return false;
  }
}
