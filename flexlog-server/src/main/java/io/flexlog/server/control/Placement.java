package io.flexlog.server.control;

import io.flexlog.core.error.NotEnoughNodesException;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Places new shards on replica nodes: each shard on {@code replicationFactor} distinct nodes, the
 * least-loaded first (load = shard replicas a node already holds; ties go to the smaller node id),
 * counting the shards placed so far, so that the shards of one color spread over the cluster.
 */
final class Placement {
  private Placement() {}

  /**
   * @param firstShardId the id of the first new shard; the others follow consecutively
   * @throws NotEnoughNodesException when the cluster has fewer replica nodes than the factor
   */
  static List<Shard> place(
      Topology topology,
      String colorName,
      int colorId,
      int firstShardId,
      int shardCount,
      int replicationFactor) {
    List<Integer> replicaNodes = new ArrayList<>();
    for (NodeAddress node : topology.nodes().values()) {
      if (node.kind() == NodeAddress.Kind.REPLICA) {
        replicaNodes.add(node.id());
      }
    }
    if (replicaNodes.size() < replicationFactor) {
      throw new NotEnoughNodesException(
          "color '"
              + colorName
              + "' needs "
              + replicationFactor
              + " distinct replica nodes per shard, but the cluster has "
              + replicaNodes.size()
              + " "
              + replicaNodes.stream().sorted().toList()
              + "; lower the replication factor or add replica nodes");
    }
    Map<Integer, Integer> load = new HashMap<>();
    for (int node : replicaNodes) {
      load.put(node, 0);
    }
    for (Shard shard : topology.shards()) {
      for (int node : shard.replicaNodeIds()) {
        load.merge(node, 1, Integer::sum);
      }
    }
    Comparator<Integer> leastLoaded =
        Comparator.<Integer>comparingInt(load::get).thenComparingInt(Integer::intValue);
    List<Shard> shards = new ArrayList<>(shardCount);
    for (int i = 0; i < shardCount; i++) {
      List<Integer> chosen =
          replicaNodes.stream().sorted(leastLoaded).limit(replicationFactor).toList();
      for (int node : chosen) {
        load.merge(node, 1, Integer::sum);
      }
      shards.add(new Shard(firstShardId + i, colorId, chosen));
    }
    return shards;
  }
}
