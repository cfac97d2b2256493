package io.flexlog.sequencer.ordering;

import java.util.Arrays;

/**
 * The join marks (docs/architecture.md#subscribe) one hosted color took, or that came down one
 * parent edge, in order: {@code (topology version, mark SN)} pairs, at most one per version. Kept
 * for the connection's lifetime of the process so that a replica or child that (re)connects gets
 * them again with its catch-up watermarks (a restarted replica has lost the marks it kept in
 * memory). A restarted sequencer process starts without marks: the topology it starts from already
 * has the shards.
 *
 * <p>Threading: owned by the node's event loop.
 */
final class JoinMarks {
  private long[] versions = new long[0];
  private long[] sns = new long[0];
  private int[] slotsBefore = new int[0];
  private int count;

  /**
   * @param slotsBefore for a hosted color, how many of its first shard slots were in the subtree
   *     before: a catch-up repeats the mark only to their replicas, those of the new shards have
   *     nothing to learn from it. 0 for marks that came down an edge: a route judges its slots by
   *     the topology version that added them ({@link ForwardRoute#slotsBefore}) when it uses them
   * @return false when a mark of this version is already kept
   */
  boolean add(long topologyVersion, long markSn, int slotsBefore) {
    for (int i = 0; i < count; i++) {
      if (versions[i] == topologyVersion) {
        return false;
      }
    }
    if (count == versions.length) {
      versions = Arrays.copyOf(versions, Math.max(2, count * 2));
      sns = Arrays.copyOf(sns, versions.length);
      this.slotsBefore = Arrays.copyOf(this.slotsBefore, versions.length);
    }
    versions[count] = topologyVersion;
    sns[count] = markSn;
    this.slotsBefore[count] = slotsBefore;
    count++;
    return true;
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

  int slotsBefore(int i) {
    return slotsBefore[i];
  }
}
