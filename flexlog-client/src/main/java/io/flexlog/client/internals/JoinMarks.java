package io.flexlog.client.internals;

import java.util.Arrays;

/**
 * The join marks a subscription received for topologies newer than its shard set and has not acted
 * on yet: (topology version, mark SN) pairs, one per version, and the state of the topology refresh
 * they wait for.
 *
 * <p>Topology changes: when the color's subtree gains shards, the role of the color takes a join
 * mark {@code j} (every SN it gave before is below {@code j}, every SN a new shard can hold is at
 * or above it) and every replica of the old shards delivers it on its streams before any record or
 * progress at or above {@code j}. A mark of a topology newer than the subscription's makes the
 * merger hold every release at or above {@code j} at once; the subscription refreshes the topology
 * (again, every {@link ClientSubscription#MARK_RETRY_NS}, until the fetched topology is at least
 * the mark's version), opens a stream on every shard of the subtree it lacks, starting at {@code j}
 * (or at its own start, if later), and then lifts the hold: the enlarged merge releases nothing at
 * or above {@code j} before the new streams' progress passes it. Marks the subscription's topology
 * already covers (it was opened, or refreshed, after the change) are ignored; a new stream opened
 * below a shard's join mark is harmless, the shard has nothing of the color there.
 *
 * <p>Threading: the client's event loop only.
 */
final class JoinMarks {
  private long[] versions = new long[2];
  private long[] sns = new long[2];
  private int count;
  private boolean refreshing;
  private long retryAtNs;

  /**
   * Notes a mark.
   *
   * @return false if a mark of this version is pending already (the same mark from another shard)
   */
  boolean add(long version, long markSn) {
    for (int i = 0; i < count; i++) {
      if (versions[i] == version) {
        return false;
      }
    }
    if (count == sns.length) {
      sns = Arrays.copyOf(sns, count * 2);
      versions = Arrays.copyOf(versions, count * 2);
    }
    versions[count] = version;
    sns[count] = markSn;
    count++;
    return true;
  }

  boolean isEmpty() {
    return count == 0;
  }

  /**
   * Removes the marks a topology of {@code version} covers.
   *
   * @return the lowest SN among them, {@link Long#MAX_VALUE} if none
   */
  long takeCovered(long version) {
    long startSn = Long.MAX_VALUE;
    int kept = 0;
    for (int i = 0; i < count; i++) {
      if (versions[i] <= version) {
        startSn = Math.min(startSn, sns[i]);
      } else {
        versions[kept] = versions[i];
        sns[kept++] = sns[i];
      }
    }
    count = kept;
    return startSn;
  }

  /** The lowest SN of the pending marks, {@link Long#MAX_VALUE} if none. */
  long lowestSn() {
    long lowest = Long.MAX_VALUE;
    for (int i = 0; i < count; i++) {
      lowest = Math.min(lowest, sns[i]);
    }
    return lowest;
  }

  /**
   * Starts a refresh for the marks.
   *
   * @return false if one is under way already
   */
  boolean startRefresh() {
    if (refreshing) {
      return false;
    }
    refreshing = true;
    retryAtNs = 0;
    return true;
  }

  void refreshed() {
    refreshing = false;
  }

  /** The fetched topology was behind a pending mark: ask again at {@code atNs}. */
  void retryAt(long atNs) {
    retryAtNs = atNs;
  }

  /** True when marks are pending, no refresh is under way and the retry time came. */
  boolean dueForRetry(long nowNs) {
    return count > 0 && !refreshing && retryAtNs != 0 && nowNs - retryAtNs >= 0;
  }
}
