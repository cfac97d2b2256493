package io.flexlog.client.internals;

import io.flexlog.client.LogRecord;
import java.util.ArrayDeque;

/**
 * Merges the per-shard streams of one subscription into one SN-ordered stream
 * (docs/architecture.md#subscribe).
 *
 * <p>Each shard's stream delivers that shard's records of the color in increasing SN order, and a
 * progress: no record of the shard with an SN at or below it is still to come. A record is released
 * once every shard's progress has reached its SN; then no shard can still produce a smaller one, so
 * every subscriber of the color releases the same records in the same order, whatever the timing of
 * its streams. Gaps between released SNs are holes.
 *
 * <p>A record whose SN was already released (the same record from two shards, or from a replica
 * re-sending after a failover) is dropped, as is one below the subscription's start.
 *
 * <p>Topology changes: when a color's subtree gains shards from a join mark {@code j} on
 * (docs/architecture.md#join-marks), the subscription calls {@link #holdFrom} with {@code j} as
 * soon as the mark arrives, which stops every release at or above {@code j}, then {@link #addShard}
 * for each new shard once it knows them, and finally lifts the hold. Records below {@code j} flow
 * on meanwhile.
 *
 * <p>Threading: not thread-safe; owned by the client's event loop.
 */
final class SubscriptionMerger {
  private ArrayDeque<LogRecord>[] buffered;
  private long[] progress;
  private long[] lastSn;
  private final long fromSn;
  private long lastReleased;

  /** No record at or above this SN is released (a join mark not handled yet). */
  private long holdSn = Long.MAX_VALUE;

  /** Receives released (and dropped) records with the shard index they came from. */
  interface Sink {
    void released(LogRecord record, int shard);

    void dropped(LogRecord record, int shard);
  }

  /**
   * @param shards the number of shard streams
   * @param fromSn the first SN of interest: records below it are never released
   */
  @SuppressWarnings("unchecked")
  SubscriptionMerger(int shards, long fromSn) {
    if (shards <= 0) {
      throw new IllegalArgumentException("a subscription needs at least one shard");
    }
    if (fromSn < 0) {
      throw new IllegalArgumentException("fromSn must be >= 0: " + fromSn);
    }
    this.buffered = new ArrayDeque[shards];
    this.progress = new long[shards];
    this.lastSn = new long[shards];
    this.fromSn = fromSn;
    long start = Math.max(0, fromSn - 1);
    for (int i = 0; i < shards; i++) {
      buffered[i] = new ArrayDeque<>();
      progress[i] = start;
      lastSn[i] = start;
    }
    this.lastReleased = start;
  }

  int shardCount() {
    return progress.length;
  }

  /**
   * Where a new stream of {@code shard} must start so that nothing is lost or repeated: just past
   * everything this merger has from it.
   */
  long resumeSn(int shard) {
    return Math.max(progress[shard], lastSn[shard]) + 1;
  }

  long progress(int shard) {
    return progress[shard];
  }

  /** The SN of the last released record, or {@code max(0, fromSn - 1)} before the first. */
  long lastReleased() {
    return lastReleased;
  }

  /**
   * Every SN at or below this is decided: released, dropped or a hole. Capped below the hold (see
   * {@link #holdFrom}).
   */
  long releasedThrough() {
    long min = holdSn - 1;
    for (long p : progress) {
      min = Math.min(min, p);
    }
    return min;
  }

  /**
   * Releases nothing at or above {@code sn} from now on, until the hold is moved ({@link
   * Long#MAX_VALUE} lifts it).
   */
  void holdFrom(long sn) {
    holdSn = sn;
  }

  long holdSn() {
    return holdSn;
  }

  /**
   * Adds a shard whose stream starts at {@code startSn}: nothing below it can come from the shard
   * (its progress starts just below it).
   *
   * @return the new shard's index
   */
  @SuppressWarnings("unchecked")
  int addShard(long startSn) {
    int index = progress.length;
    buffered = java.util.Arrays.copyOf(buffered, index + 1);
    progress = java.util.Arrays.copyOf(progress, index + 1);
    lastSn = java.util.Arrays.copyOf(lastSn, index + 1);
    long start = Math.max(0, Math.max(startSn, fromSn) - 1);
    buffered[index] = new ArrayDeque<>();
    progress[index] = start;
    lastSn[index] = start;
    return index;
  }

  /**
   * Adds a record of a shard's stream.
   *
   * @return false if it breaks the stream's order (not above the shard's previous record or
   *     progress): the stream is faulty and the record was not taken
   */
  boolean onRecord(int shard, LogRecord record) {
    if (record.sn() <= lastSn[shard] || record.sn() <= progress[shard]) {
      return false;
    }
    lastSn[shard] = record.sn();
    buffered[shard].add(record);
    return true;
  }

  /**
   * A stream of {@code shard} broke its contract (a record at or below the progress it reported):
   * forgets everything that stream reported beyond the last released SN, dropping its buffered
   * records, so that the shard's next stream resumes right after the last released SN ({@link
   * #resumeSn}) and delivers them again, in order, instead of skipping them.
   */
  void rewind(int shard, Sink sink) {
    for (LogRecord record : buffered[shard]) {
      sink.dropped(record, shard);
    }
    buffered[shard].clear();
    progress[shard] = lastReleased;
    lastSn[shard] = lastReleased;
  }

  /** Notes a shard's progress; smaller values than before are ignored. */
  void onProgress(int shard, long sn) {
    progress[shard] = Math.max(progress[shard], sn);
  }

  /**
   * Releases, in SN order, every buffered record that every shard's progress has passed.
   *
   * @return how many records were released
   */
  int drain(Sink sink) {
    long through = releasedThrough();
    int released = 0;
    while (true) {
      int next = -1;
      long nextSn = Long.MAX_VALUE;
      for (int i = 0; i < buffered.length; i++) {
        LogRecord head = buffered[i].peekFirst();
        if (head != null && head.sn() < nextSn) {
          nextSn = head.sn();
          next = i;
        }
      }
      if (next < 0 || nextSn > through) {
        return released;
      }
      LogRecord record = buffered[next].pollFirst();
      if (record.sn() < fromSn || record.sn() <= lastReleased) {
        sink.dropped(record, next);
      } else {
        lastReleased = record.sn();
        sink.released(record, next);
        released++;
      }
    }
  }

  /** Records held back, waiting for some shard's progress; for tests and diagnostics. */
  int bufferedCount() {
    int count = 0;
    for (ArrayDeque<LogRecord> queue : buffered) {
      count += queue.size();
    }
    return count;
  }
}
