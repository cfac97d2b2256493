package io.flexlog.replica.replication;

import java.util.Arrays;

/**
 * One fetch of the sync phase ({@link RangeSync}): a blind range {@code (from, through]} of a log,
 * or a fill of awaited SNs, with each peer's cursor and outstanding request. Threading: the
 * replica's event loop.
 */
final class SyncFetch {
  final ColorLog log;
  final int sequencerId;
  final int incarnation;
  final long from;
  final long through;
  final int[] peerIds;
  final long[] cursors;
  final long[] requestIds;

  /** The request each peer was sent before its current one, still answerable. */
  final long[] previousRequestIds;

  final boolean[] done;

  /** Fetches awaited records (see {@link RangeSync#fillIfStuck}), not a blind range. */
  final boolean fill;

  boolean cancelled;
  ReplicaRuntime.Timer retry;

  /** Records and payload bytes received for this fetch. */
  long records;

  long bytes;

  SyncFetch(
      ColorLog log,
      int sequencerId,
      int incarnation,
      long from,
      long through,
      int[] peerIds,
      boolean fill) {
    this.fill = fill;
    this.log = log;
    this.sequencerId = sequencerId;
    this.incarnation = incarnation;
    this.from = from;
    this.through = through;
    this.peerIds = peerIds;
    this.cursors = new long[peerIds.length];
    Arrays.fill(cursors, from);
    this.requestIds = new long[peerIds.length];
    this.previousRequestIds = new long[peerIds.length];
    this.done = new boolean[peerIds.length];
  }

  /** A fill's smallest awaited SN: the fill is over once it is here. */
  long firstAwaited() {
    return from + 1;
  }

  int peerIndex(int nodeId) {
    for (int i = 0; i < peerIds.length; i++) {
      if (peerIds[i] == nodeId) {
        return i;
      }
    }
    return -1;
  }

  boolean complete() {
    for (boolean d : done) {
      if (!d) {
        return false;
      }
    }
    return true;
  }
}
