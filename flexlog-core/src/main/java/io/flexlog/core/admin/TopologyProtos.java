package io.flexlog.core.admin;

import io.flexlog.admin.v1.ColorInfo;
import io.flexlog.admin.v1.NodeKind;
import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Retention;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import java.util.ArrayList;
import java.util.List;

/**
 * Converts between the model ({@link Topology}) and its control-plane message ({@code
 * flexlog.admin.v1.Topology}), which is also the body of the durable cluster metadata file. A color
 * without retention fields (written before they existed) keeps everything.
 *
 * <p>Needs protobuf-java on the classpath (an optional dependency of flexlog-core): only the server
 * side loads this class, never the client jar.
 */
public final class TopologyProtos {
  private TopologyProtos() {}

  public static io.flexlog.admin.v1.Topology toProto(Topology topology) {
    io.flexlog.admin.v1.Topology.Builder b =
        io.flexlog.admin.v1.Topology.newBuilder().setVersion(topology.version());
    for (NodeAddress node : topology.nodes().values()) {
      b.addNodes(
          io.flexlog.admin.v1.Node.newBuilder()
              .setId(node.id())
              .setKind(
                  node.kind() == NodeAddress.Kind.SEQUENCER
                      ? NodeKind.NODE_KIND_SEQUENCER
                      : NodeKind.NODE_KIND_REPLICA)
              .setHost(node.host())
              .setPort(node.port()));
    }
    for (Color color : topology.colors()) {
      io.flexlog.admin.v1.Color.Builder c =
          io.flexlog.admin.v1.Color.newBuilder()
              .setId(color.id())
              .setName(color.name())
              .setParentId(color.parentId())
              .setSequencerNodeId(color.sequencerId())
              .setRoleEpoch(color.roleEpoch());
      // Only limits that are set: a color that keeps everything encodes as before retention.
      if (color.retention().ms() != Retention.KEEP) {
        c.setRetentionMs(color.retention().ms());
      }
      if (color.retention().bytes() != Retention.KEEP) {
        c.setRetentionBytes(color.retention().bytes());
      }
      b.addColors(c);
    }
    for (Shard shard : topology.shards()) {
      b.addShards(
          io.flexlog.admin.v1.Shard.newBuilder()
              .setId(shard.id())
              .setColorId(shard.colorId())
              .addAllReplicaNodeIds(shard.replicaNodeIds()));
    }
    return b.build();
  }

  /**
   * Validates and converts a topology message.
   *
   * @throws InvalidArgumentException naming the inconsistency (an unknown node kind, a shard on an
   *     unknown node, a cycle in the color tree, ...)
   */
  public static Topology fromProto(io.flexlog.admin.v1.Topology message) {
    try {
      List<NodeAddress> nodes = new ArrayList<>(message.getNodesCount());
      for (io.flexlog.admin.v1.Node node : message.getNodesList()) {
        NodeAddress.Kind kind =
            switch (node.getKind()) {
              case NODE_KIND_SEQUENCER -> NodeAddress.Kind.SEQUENCER;
              case NODE_KIND_REPLICA -> NodeAddress.Kind.REPLICA;
              default ->
                  throw new IllegalArgumentException(
                      "node " + node.getId() + " has unknown kind " + node.getKindValue());
            };
        nodes.add(new NodeAddress(node.getId(), kind, node.getHost(), node.getPort()));
      }
      List<Color> colors = new ArrayList<>(message.getColorsCount());
      for (io.flexlog.admin.v1.Color color : message.getColorsList()) {
        colors.add(
            new Color(
                color.getId(),
                color.getName(),
                color.getParentId(),
                color.getSequencerNodeId(),
                color.getRoleEpoch(),
                new Retention(
                    color.hasRetentionMs() ? color.getRetentionMs() : Retention.KEEP,
                    color.hasRetentionBytes() ? color.getRetentionBytes() : Retention.KEEP)));
      }
      List<Shard> shards = new ArrayList<>(message.getShardsCount());
      for (io.flexlog.admin.v1.Shard shard : message.getShardsList()) {
        shards.add(new Shard(shard.getId(), shard.getColorId(), shard.getReplicaNodeIdsList()));
      }
      return new Topology(message.getVersion(), nodes, colors, shards);
    } catch (IllegalArgumentException e) {
      throw new InvalidArgumentException(
          "inconsistent topology version " + message.getVersion() + ": " + e.getMessage());
    }
  }

  /** The user-facing description of a color of {@code topology}. */
  public static ColorInfo colorInfo(Topology topology, Color color) {
    ColorInfo.Builder b =
        ColorInfo.newBuilder()
            .setId(color.id())
            .setName(color.name())
            .setParent(
                color.isRoot() ? "" : topology.color(color.parentId()).map(Color::name).orElse("?"))
            .setSequencerNodeId(color.sequencerId());
    int replication = 0;
    for (Shard shard : topology.shards()) {
      if (shard.colorId() == color.id()) {
        b.addShardIds(shard.id());
        replication = Math.max(replication, shard.replicaNodeIds().size());
      }
    }
    return b.setReplicationFactor(replication)
        .setRetentionMs(color.retention().ms())
        .setRetentionBytes(color.retention().bytes())
        .build();
  }
}
