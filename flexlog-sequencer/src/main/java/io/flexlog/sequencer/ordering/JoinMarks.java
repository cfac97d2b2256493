package io.flexlog.sequencer.ordering;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The join marks (docs/architecture.md#join-marks) one hosted color took, or that came down one
 * parent edge, in order: {@code (topology version, mark SN)} pairs, at most one per version, so
 * that a replica or child that (re)connects gets them again with its catch-up watermarks. A hosted
 * color's marks are also saved in the node's {@link JoinMarkStore} and loaded again by a restarted
 * process (or by the node the role comes back to); marks from a parent edge are not saved, the
 * parent repeats them when this node says SEQUENCER_HELLO.
 *
 * <p>Bounded: beyond {@link #MAX_MARKS}, the two oldest are merged into one with the newer version
 * and the older (smaller) SN. A smaller mark only makes a subscriber hold its releases and open the
 * new shards' streams from an earlier SN, both safe; a mark's SN must never grow, which merging
 * never does.
 *
 * <p>Threading: owned by the node's event loop.
 */
final class JoinMarks {
  /** The most marks kept per color and edge (see the class comment). */
  static final int MAX_MARKS = JoinMarkStore.MAX_MARKS;

  private static final int[] NONE = new int[0];

  private long[] versions = new long[0];
  private long[] sns = new long[0];
  private int[][] joined = new int[0][];
  private int count;

  /**
   * @param joinedShardIds for a hosted color, the shards that joined its subtree with this version:
   *     a catch-up repeats the mark only to replicas of other shards, those of the new shards have
   *     nothing to learn from it. Empty for marks that came down an edge: a route judges its slots
   *     by the topology version that added them ({@link ForwardRoute#slotsBefore}) when it uses
   *     them
   * @return false when a mark of this version is already kept
   */
  boolean add(long topologyVersion, long markSn, int[] joinedShardIds) {
    for (int i = 0; i < count; i++) {
      if (versions[i] == topologyVersion) {
        return false;
      }
    }
    if (count == MAX_MARKS) {
      mergeOldest();
    }
    if (count == versions.length) {
      versions = Arrays.copyOf(versions, Math.max(2, count * 2));
      sns = Arrays.copyOf(sns, versions.length);
      joined = Arrays.copyOf(joined, versions.length);
    }
    versions[count] = topologyVersion;
    sns[count] = markSn;
    joined[count] = joinedShardIds.length == 0 ? NONE : joinedShardIds.clone();
    count++;
    return true;
  }

  /** Merges marks 0 and 1: the version of 1, the smaller SN, the shards that joined with both. */
  private void mergeOldest() {
    sns[1] = Math.min(sns[0], sns[1]);
    joined[1] = Arrays.stream(joined[1]).filter(id -> contains(joined[0], id)).toArray();
    System.arraycopy(versions, 1, versions, 0, count - 1);
    System.arraycopy(sns, 1, sns, 0, count - 1);
    System.arraycopy(joined, 1, joined, 0, count - 1);
    count--;
  }

  /** Adds the saved marks of a role that is created here (none of their versions may be kept). */
  void load(List<JoinMarkStore.Mark> saved) {
    for (JoinMarkStore.Mark mark : saved) {
      add(
          mark.topologyVersion(),
          mark.sn(),
          mark.joinedShardIds().stream().mapToInt(Integer::intValue).toArray());
    }
  }

  /** The marks as the store keeps them, oldest first. */
  List<JoinMarkStore.Mark> toList() {
    List<JoinMarkStore.Mark> list = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      list.add(
          new JoinMarkStore.Mark(versions[i], sns[i], Arrays.stream(joined[i]).boxed().toList()));
    }
    return list;
  }

  int count() {
    return count;
  }

  long version(int i) {
    return versions[i];
  }

  long sn(int i) {
    return sns[i];
  }

  /** Whether {@code shardId} joined the subtree with mark {@code i} (hosted colors only). */
  boolean joined(int i, int shardId) {
    return contains(joined[i], shardId);
  }

  private static boolean contains(int[] ids, int id) {
    for (int x : ids) {
      if (x == id) {
        return true;
      }
    }
    return false;
  }
}
