package io.flexlog.server.control;

import io.flexlog.core.error.ColorExistsException;
import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.core.error.UnknownColorException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import java.util.ArrayList;
import java.util.List;

/**
 * The topology side of AddColor (docs/architecture.md#addcolor-and-topology-distribution) for the
 * {@link ClusterController}: builds the next topology version with a new color and its shards
 * (placed by {@link Placement}), checks that a color asked for again has the settings it was
 * created with, and names shards, colors and nodes in log lines and error messages. Pure functions
 * of the topology; the controller commits, distributes and serializes.
 */
final class ColorCreation {
  private ColorCreation() {}

  /**
   * The topology after {@code spec}'s color is added: the next version, the color under its parent,
   * on the requested sequencer node (or the parent's), and its shards placed.
   *
   * @throws UnknownColorException when the parent does not exist
   * @throws InvalidArgumentException when the sequencer node is not one
   */
  static Topology withColor(Topology topology, ColorSpec spec) {
    Color parent =
        topology
            .color(spec.parent())
            .orElseThrow(
                () ->
                    new UnknownColorException(
                        "cannot create color '"
                            + spec.name()
                            + "': parent color '"
                            + spec.parent()
                            + "' does not exist; the cluster has "
                            + names(topology)));
    int sequencerId =
        spec.sequencerNodeId() != null ? spec.sequencerNodeId() : parent.sequencerId();
    NodeAddress sequencer = topology.nodes().get(sequencerId);
    if (sequencer == null || sequencer.kind() != NodeAddress.Kind.SEQUENCER) {
      throw new InvalidArgumentException(
          "cannot create color '"
              + spec.name()
              + "': node "
              + sequencerId
              + " is not a sequencer node (sequencer nodes: "
              + nodeIds(topology, NodeAddress.Kind.SEQUENCER)
              + ")");
    }
    int colorId = topology.colors().stream().mapToInt(Color::id).max().orElse(-1) + 1;
    int firstShardId = topology.shards().stream().mapToInt(Shard::id).max().orElse(-1) + 1;
    List<Color> colors = new ArrayList<>(topology.colors());
    colors.add(
        new Color(colorId, spec.name(), parent.id(), sequencerId, 0, spec.retentionOrDefault()));
    List<Shard> shards = new ArrayList<>(topology.shards());
    shards.addAll(
        Placement.place(
            topology, spec.name(), colorId, firstShardId, spec.shards(), spec.replicationFactor()));
    return new Topology(
        topology.version() + 1, List.copyOf(topology.nodes().values()), colors, shards);
  }

  /**
   * Returns when the existing color has the settings {@code spec} asks for.
   *
   * @throws ColorExistsException naming both settings otherwise
   */
  static void requireSameSettings(Topology topology, Color existing, ColorSpec spec) {
    String parent =
        existing.isRoot()
            ? "(none: it is the root)"
            : "'" + topology.color(existing.parentId()).orElseThrow().name() + "'";
    List<Shard> own = ownShards(topology, existing);
    boolean sameParent =
        !existing.isRoot()
            && topology.color(existing.parentId()).orElseThrow().name().equals(spec.parent());
    boolean sameShards = own.size() == spec.shards();
    boolean sameReplication =
        own.stream().allMatch(s -> s.replicaNodeIds().size() == spec.replicationFactor());
    boolean sameSequencer =
        spec.sequencerNodeId() == null || spec.sequencerNodeId() == existing.sequencerId();
    boolean sameRetention =
        spec.retention() == null || spec.retention().equals(existing.retention());
    if (sameParent && sameShards && sameReplication && sameSequencer && sameRetention) {
      return;
    }
    throw new ColorExistsException(
        "color '"
            + existing.name()
            + "' already exists with parent "
            + parent
            + ", "
            + own.size()
            + " shard(s) of "
            + own.stream().mapToInt(s -> s.replicaNodeIds().size()).max().orElse(0)
            + " replica(s), on sequencer node "
            + existing.sequencerId()
            + "; requested parent '"
            + spec.parent()
            + "', "
            + spec.shards()
            + " shard(s) of "
            + spec.replicationFactor()
            + " replica(s)"
            + (spec.sequencerNodeId() == null
                ? ""
                : ", on sequencer node " + spec.sequencerNodeId())
            + (sameRetention
                ? ""
                : "; it has "
                    + existing.retention()
                    + ", requested "
                    + spec.retention()
                    + " (change it with AlterColor: colors alter)"));
  }

  /** The shards of the color itself (not of its descendants). */
  static List<Shard> ownShards(Topology topology, Color color) {
    return topology.shards().stream().filter(s -> s.colorId() == color.id()).toList();
  }

  /** The color's shards with their replica nodes, for log lines. */
  static String describeShards(Topology topology, Color color) {
    StringBuilder b = new StringBuilder();
    for (Shard shard : ownShards(topology, color)) {
      b.append(b.isEmpty() ? "" : ", ").append(shard.id()).append(shard.replicaNodeIds());
    }
    return b.toString();
  }

  private static List<String> names(Topology topology) {
    return topology.colors().stream().map(Color::name).sorted().toList();
  }

  private static List<Integer> nodeIds(Topology topology, NodeAddress.Kind kind) {
    return topology.nodes().values().stream()
        .filter(n -> n.kind() == kind)
        .map(NodeAddress::id)
        .sorted()
        .toList();
  }
}
