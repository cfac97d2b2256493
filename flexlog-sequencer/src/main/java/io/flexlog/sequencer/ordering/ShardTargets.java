package io.flexlog.sequencer.ordering;

import io.flexlog.core.model.Shard;

/**
 * The registered connections of one shard's replicas: at most one per replica node of the shard,
 * indexed by the replica's position in {@link Shard#replicaNodeIds()}.
 *
 * <p>Threading: owned by the node's event loop.
 */
final class ShardTargets {
  private final Shard shard;
  private final int[] replicaIds;
  private final PeerLink[] links;

  ShardTargets(Shard shard) {
    this.shard = shard;
    this.replicaIds = shard.replicaNodeIds().stream().mapToInt(Integer::intValue).toArray();
    this.links = new PeerLink[replicaIds.length];
  }

  Shard shard() {
    return shard;
  }

  /** Position of the replica node in the shard, or -1 when the shard has no replica there. */
  int position(int replicaNodeId) {
    for (int i = 0; i < replicaIds.length; i++) {
      if (replicaIds[i] == replicaNodeId) {
        return i;
      }
    }
    return -1;
  }

  /** Makes {@code link} the target of replica {@code position}; returns the link it replaced. */
  PeerLink register(int position, PeerLink link) {
    PeerLink previous = links[position];
    links[position] = link;
    return previous;
  }

  boolean isRegistered(PeerLink link) {
    for (PeerLink l : links) {
      if (l == link) {
        return true;
      }
    }
    return false;
  }

  void unregister(PeerLink link) {
    for (int i = 0; i < links.length; i++) {
      if (links[i] == link) {
        links[i] = null;
      }
    }
  }

  /** Slots of {@link #link}; entries may be null when a replica is not connected. */
  int capacity() {
    return links.length;
  }

  PeerLink link(int position) {
    return links[position];
  }
}
