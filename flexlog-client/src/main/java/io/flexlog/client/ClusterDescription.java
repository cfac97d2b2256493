package io.flexlog.client;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import java.util.List;

/**
 * The cluster as its metadata describes it ({@link FlexLogAdmin#describeCluster}).
 *
 * @param topology every node, color and shard, at the metadata's current version
 * @param maxRecordBytes the largest record the cluster accepts
 * @param adminServices the admin services (the nodes of the metadata quorum) that the answering
 *     node relays admin requests to, in the order it tries them
 */
public record ClusterDescription(
    Topology topology, int maxRecordBytes, List<AdminService> adminServices) {
  public ClusterDescription {
    adminServices = List.copyOf(adminServices);
  }

  /**
   * An admin gRPC service ({@code flexlog.admin.v1.FlexLogAdmin}) and the node that runs it.
   *
   * @param nodeId the node's id
   */
  public record AdminService(int nodeId, String host, int port) {
    @Override
    public String toString() {
      return host + ":" + port;
    }
  }

  /** The topology's version: it grows with every change (a new color, a role moving). */
  public long topologyVersion() {
    return topology.version();
  }

  /** Every node, in the topology's order. */
  public List<NodeAddress> nodes() {
    return List.copyOf(topology.nodes().values());
  }

  /** Every color, in the topology's order. */
  public List<Color> colors() {
    return topology.colors();
  }

  /** Every shard with the replica nodes holding it. */
  public List<Shard> shards() {
    return topology.shards();
  }
}
