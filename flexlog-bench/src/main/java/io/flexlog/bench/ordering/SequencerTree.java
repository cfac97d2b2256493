package io.flexlog.bench.ordering;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import java.util.ArrayList;
import java.util.List;

/**
 * The topology of one ordering run, built only from the shared contract (plan.md): a color's {@link
 * Color#sequencerId()} is the sequencer node hosting its role and {@link Color#parentId()} its
 * parent; a load client acts as the single replica of its own shard, attached to a deepest color,
 * and connects to the node hosting that color.
 *
 * <p>Shape: the root color {@code global} and {@code leaves} branches below it, each a chain of
 * {@code height - 1} colors (height counts levels, root included). With {@code leaves = 0} the tree
 * is the root alone (height 1) and the shards hang directly under {@code global}.
 *
 * <pre>
 *   leaves 2, height 2           leaves 1, height 3
 *        global                       global
 *       /      \                        |
 *   leaf-1    leaf-2                  mid1-1
 *                                       |
 *                                     leaf-1
 * </pre>
 *
 * <p>Ids: color {@code k} is the {@code k}-th color in breadth-first order of its branch (root 0;
 * branch {@code b} (from 0), level {@code l} (from 1): {@code 1 + b * (height - 1) + l - 1}), so a
 * parent's id is always smaller than its children's. With {@link Placement#LOOPBACK} color {@code
 * k} is hosted by sequencer node {@code k}; with {@link Placement#IN_PROCESS} node 0 hosts every
 * color. Replica node and shard ids follow: client {@code i} is replica node {@code S + i} (S =
 * number of sequencer nodes) and the only replica of shard {@code i}, attached to the deepest color
 * of branch {@code i mod leaves}.
 */
public final class SequencerTree {
  /** The node hosting the root color {@code global}. */
  public static final int ROOT_NODE_ID = 0;

  /** Every node of a benchmark listens on loopback only. */
  public static final String HOST = "127.0.0.1";

  /** Where load client {@code client} attaches and what it asks for. */
  public record Attachment(
      int client, int replicaNodeId, int shardId, int sequencerNodeId, int requestColorId) {}

  private final int leaves;
  private final int height;
  private final Placement placement;
  private final OrderedColor orderedColor;
  private final Topology topology;
  private final List<Attachment> attachments;

  private SequencerTree(
      int leaves,
      int height,
      Placement placement,
      OrderedColor orderedColor,
      Topology topology,
      List<Attachment> attachments) {
    this.leaves = leaves;
    this.height = height;
    this.placement = placement;
    this.orderedColor = orderedColor;
    this.topology = topology;
    this.attachments = attachments;
  }

  /** How many colors (roles) the tree has. */
  public static int colorCount(int leaves, int height) {
    return 1 + leaves * (height - 1);
  }

  /** How many sequencer nodes the placement needs; their ports are passed to {@link #build}. */
  public static int sequencerNodeCount(int leaves, int height, Placement placement) {
    return placement == Placement.IN_PROCESS ? 1 : colorCount(leaves, height);
  }

  /**
   * Builds the topology.
   *
   * @param sequencerPorts the data-plane port of sequencer node {@code i} at index {@code i}; its
   *     length must be {@link #sequencerNodeCount}
   * @throws IllegalArgumentException when the shape is not one this class describes
   */
  public static SequencerTree build(
      int leaves,
      int height,
      int clients,
      Placement placement,
      OrderedColor orderedColor,
      int[] sequencerPorts) {
    if (leaves < 0 || clients < 1 || height < 1 || (leaves == 0) != (height == 1)) {
      throw new IllegalArgumentException(
          "no tree with leaves=" + leaves + ", height=" + height + ", clients=" + clients);
    }
    if (leaves == 0 && orderedColor == OrderedColor.LEAF) {
      throw new IllegalArgumentException("a tree without leaves has no leaf color");
    }
    int sequencers = sequencerNodeCount(leaves, height, placement);
    if (sequencerPorts.length != sequencers) {
      throw new IllegalArgumentException(
          "expected " + sequencers + " sequencer ports, got " + sequencerPorts.length);
    }
    List<NodeAddress> nodes = new ArrayList<>();
    for (int id = 0; id < sequencers; id++) {
      nodes.add(new NodeAddress(id, NodeAddress.Kind.SEQUENCER, HOST, sequencerPorts[id]));
    }
    List<Color> colors = colors(leaves, height, placement);
    List<Shard> shards = new ArrayList<>();
    List<Attachment> attachments = new ArrayList<>();
    for (int client = 0; client < clients; client++) {
      int replicaNodeId = sequencers + client;
      // Load clients never accept connections: port 0 marks a node nobody dials.
      nodes.add(new NodeAddress(replicaNodeId, NodeAddress.Kind.REPLICA, HOST, 0));
      Color attachedTo = colors.get(deepestColorId(leaves, height, client));
      shards.add(new Shard(client, attachedTo.id(), List.of(replicaNodeId)));
      int requestColorId = orderedColor == OrderedColor.ROOT ? Color.GLOBAL_ID : attachedTo.id();
      attachments.add(
          new Attachment(client, replicaNodeId, client, attachedTo.sequencerId(), requestColorId));
    }
    Topology topology = new Topology(1, nodes, colors, shards);
    return new SequencerTree(
        leaves, height, placement, orderedColor, topology, List.copyOf(attachments));
  }

  private static List<Color> colors(int leaves, int height, Placement placement) {
    List<Color> colors = new ArrayList<>();
    colors.add(new Color(Color.GLOBAL_ID, Color.GLOBAL, Color.NO_PARENT, ROOT_NODE_ID));
    for (int branch = 0; branch < leaves; branch++) {
      for (int level = 1; level < height; level++) {
        int id = colorId(height, branch, level);
        int parentId = level == 1 ? Color.GLOBAL_ID : id - 1;
        String name =
            level == height - 1 ? "leaf-" + (branch + 1) : "mid" + level + "-" + (branch + 1);
        int sequencerId = placement == Placement.IN_PROCESS ? ROOT_NODE_ID : id;
        colors.add(new Color(id, name, parentId, sequencerId));
      }
    }
    return colors;
  }

  private static int colorId(int height, int branch, int level) {
    return 1 + branch * (height - 1) + level - 1;
  }

  private static int deepestColorId(int leaves, int height, int client) {
    return leaves == 0 ? Color.GLOBAL_ID : colorId(height, client % leaves, height - 1);
  }

  public Topology topology() {
    return topology;
  }

  public List<Attachment> attachments() {
    return attachments;
  }

  public Placement placement() {
    return placement;
  }

  public OrderedColor orderedColor() {
    return orderedColor;
  }

  /** Sequencer node ids in start order: parents before children. */
  public List<Integer> sequencerNodeIds() {
    List<Integer> ids = new ArrayList<>();
    for (NodeAddress node : topology.nodes().values()) {
      if (node.kind() == NodeAddress.Kind.SEQUENCER) {
        ids.add(node.id());
      }
    }
    return ids;
  }

  /** One line for reports, e.g. {@code root + 2 leaves, height 2, 3 sequencer nodes}. */
  public String describe() {
    String shape =
        leaves == 0
            ? "root only (height 1)"
            : "root + " + leaves + (leaves == 1 ? " leaf" : " leaves") + ", height " + height;
    int sequencers = sequencerNodeIds().size();
    return shape
        + ", "
        + sequencers
        + (sequencers == 1 ? " sequencer node" : " sequencer nodes")
        + " ("
        + placement.cliName()
        + ")";
  }
}
