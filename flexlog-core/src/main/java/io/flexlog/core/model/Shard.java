package io.flexlog.core.model;

import java.util.List;

/**
 * A shard: a replica set attached to one color. It stores records of that color and of every
 * ancestor color; every replica of a shard stores every record of the shard.
 *
 * @param id cluster-wide shard id
 * @param colorId the color the shard is attached to
 * @param replicaNodeIds the replica nodes holding the shard's replicas, in placement order
 */
public record Shard(int id, int colorId, List<Integer> replicaNodeIds) {
  public Shard {
    replicaNodeIds = List.copyOf(replicaNodeIds);
    if (replicaNodeIds.isEmpty()) {
      throw new IllegalArgumentException("shard " + id + " has no replicas");
    }
    if (replicaNodeIds.stream().distinct().count() != replicaNodeIds.size()) {
      throw new IllegalArgumentException(
          "shard " + id + " places two replicas on one node: " + replicaNodeIds);
    }
  }
}
