package io.flexlog.server.dev;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import java.util.List;
import java.util.stream.Collectors;

/** The human-readable listing of a topology that {@code flexlog dev} prints at start. */
public final class TopologyReport {
  private TopologyReport() {}

  /** One line per node (address and what it hosts), then one per color. */
  public static String describe(Topology topology) {
    StringBuilder b = new StringBuilder();
    b.append("topology version ").append(topology.version()).append('\n');
    for (NodeAddress node : topology.nodes().values()) {
      b.append(String.format("  %-9s node %d  %-15s  ", kind(node), node.id(), node.hostPort()));
      if (node.kind() == NodeAddress.Kind.SEQUENCER) {
        b.append("hosts ")
            .append(
                topology.colors().stream()
                    .filter(c -> c.sequencerId() == node.id())
                    .map(Color::name)
                    .toList());
      } else {
        b.append("replicas of shards ")
            .append(
                topology.shardsOnReplica(node.id()).stream()
                    .map(s -> s.id() + " (" + colorName(topology, s.colorId()) + ")")
                    .collect(Collectors.joining(", ", "[", "]")));
      }
      b.append('\n');
    }
    for (Color color : topology.colors()) {
      List<Shard> own = topology.shards().stream().filter(s -> s.colorId() == color.id()).toList();
      b.append(
          String.format(
              "  color %-10s parent %-10s sequencer node %d  shards %s%n",
              color.name(),
              color.isRoot() ? "-" : colorName(topology, color.parentId()),
              color.sequencerId(),
              own.stream()
                  .map(s -> s.id() + "@" + s.replicaNodeIds())
                  .collect(Collectors.joining(", ", "[", "]"))));
    }
    return b.toString();
  }

  private static String kind(NodeAddress node) {
    return node.kind() == NodeAddress.Kind.SEQUENCER ? "sequencer" : "replica";
  }

  private static String colorName(Topology topology, int colorId) {
    return topology.color(colorId).map(Color::name).orElse("?");
  }
}
