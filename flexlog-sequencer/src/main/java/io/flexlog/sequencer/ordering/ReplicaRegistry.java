package io.flexlog.sequencer.ordering;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import org.agrona.collections.Int2ObjectHashMap;

/**
 * Which connection receives the broadcasts of which shard. A replica node registers its connection
 * for its shards (HELLO); a newer connection of the same replica node replaces the older one for
 * those shards, so a reconnecting replica never gets duplicate broadcasts.
 *
 * <p>Threading: owned by the node's event loop.
 */
final class ReplicaRegistry {
  private final Int2ObjectHashMap<ShardTargets> byShard = new Int2ObjectHashMap<>();

  ReplicaRegistry(Topology topology) {
    for (Shard shard : topology.shards()) {
      byShard.put(shard.id(), new ShardTargets(shard));
    }
  }

  /**
   * Applies a newer topology: adds new shards, and for a shard whose replica placement changed
   * keeps the connections of the replica nodes that still hold it.
   */
  void update(Topology topology) {
    for (Shard shard : topology.shards()) {
      ShardTargets old = byShard.get(shard.id());
      if (old == null) {
        byShard.put(shard.id(), new ShardTargets(shard));
      } else if (!old.shard().equals(shard)) {
        ShardTargets moved = new ShardTargets(shard);
        for (int p = 0; p < old.capacity(); p++) {
          PeerLink link = old.link(p);
          if (link != null && moved.position(link.replicaNodeId()) >= 0) {
            moved.register(moved.position(link.replicaNodeId()), link);
          }
        }
        byShard.put(shard.id(), moved);
      }
    }
  }

  /** The targets of a shard of the topology, or null for an unknown shard id. */
  ShardTargets targets(int shardId) {
    return byShard.get(shardId);
  }

  /**
   * Registers {@code link} as replica {@code replicaNodeId} of every shard in {@code shardIds}. All
   * or nothing: on a rejection nothing is registered.
   *
   * @return null on success, or why the registration was refused
   */
  Rejection register(PeerLink link, int replicaNodeId, int[] shardIds) {
    if (!link.isUnidentified() && link.replicaNodeId() != replicaNodeId) {
      return new Rejection(
          ErrorCode.INVALID_ARGUMENT,
          "connection already speaks for "
              + link
              + ", cannot register it as replica node "
              + replicaNodeId);
    }
    for (int shardId : shardIds) {
      ShardTargets targets = byShard.get(shardId);
      if (targets == null) {
        return new Rejection(ErrorCode.UNKNOWN_SHARD, "unknown shard id " + shardId);
      }
      if (targets.position(replicaNodeId) < 0) {
        return new Rejection(
            ErrorCode.INVALID_ARGUMENT,
            "replica node "
                + replicaNodeId
                + " holds no replica of shard "
                + shardId
                + " (replicas: "
                + targets.shard().replicaNodeIds()
                + ")");
      }
    }
    link.identifyReplica(replicaNodeId);
    for (int shardId : shardIds) {
      ShardTargets targets = byShard.get(shardId);
      targets.register(targets.position(replicaNodeId), link);
    }
    return null;
  }

  /** Removes a closed connection from every shard it was registered for. */
  void unregister(PeerLink link) {
    for (ShardTargets targets : byShard.values()) {
      targets.unregister(link);
    }
  }
}
