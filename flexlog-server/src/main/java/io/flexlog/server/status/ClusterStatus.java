package io.flexlog.server.status;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Retention;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import io.flexlog.core.net.Transport;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The state of a cluster as {@code bin/flexlog status} shows it (docs/operations.md, "Status"):
 * every node of the topology, up or down (and why), with its role and, for sequencer nodes, their
 * epoch; every color with its head and tail, its retention and, per shard, each replica's tail and
 * how far it lags behind the color's tail. Gathered with one TAIL_REQUEST connection per node; the
 * retention comes from the admin service.
 *
 * @param topologyVersion the topology version the client fetched
 */
public record ClusterStatus(
    long topologyVersion, List<NodeStatus> nodes, List<ColorStatus> colors) {
  /**
   * @param problem why the node is down or did not answer fully, null when all is well
   * @param epoch a sequencer node's current epoch (from its roles' tails), -1 if unknown or a
   *     replica
   */
  public record NodeStatus(
      int id, String kind, String address, boolean up, String problem, int epoch) {}

  /**
   * @param head the first SN that is not trimmed, -1 if no replica answered
   * @param tail the last SN the color's role issued, -1 if its sequencer did not answer
   * @param retention the color's retention (docs/architecture.md#retention), null when unknown (the
   *     admin service did not answer)
   */
  public record ColorStatus(
      String name,
      String parent,
      int sequencer,
      long head,
      long tail,
      Retention retention,
      List<ShardStatus> shards) {}

  public record ShardStatus(int id, List<ReplicaStatus> replicas) {}

  /**
   * @param tail the largest SN of the color the replica knows to be assigned, -1 if unknown
   * @param lag SNs between the replica's tail and the color's tail when both are of one epoch, -1
   *     otherwise
   */
  public record ReplicaStatus(int node, long tail, long lag) {}

  /** Asks every node of {@code topology}; each node gets {@code timeout}. Retention unknown. */
  public static ClusterStatus gather(Topology topology, Duration timeout) {
    return gather(topology, Map.of(), timeout);
  }

  /**
   * Asks every node of {@code topology}; each node gets {@code timeout}.
   *
   * @param retention each color's retention by name, as the admin service has it (the data plane's
   *     topology does not carry it); colors missing from it show none
   */
  public static ClusterStatus gather(
      Topology topology, Map<String, Retention> retention, Duration timeout) {
    EventLoopGroup group = Transport.eventLoops("flexlog-status", 1);
    try {
      Map<Integer, NodeProbe.Result> results = new TreeMap<>();
      for (NodeAddress node : topology.nodes().values()) {
        results.put(
            node.id(),
            NodeProbe.probe(group, node.host(), node.port(), colorsAsked(topology, node), timeout));
      }
      return assemble(topology, retention, results);
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  private static List<Integer> colorsAsked(Topology topology, NodeAddress node) {
    List<Integer> colors = new ArrayList<>();
    for (Color color : topology.colors()) {
      boolean asked =
          node.kind() == NodeAddress.Kind.SEQUENCER
              ? color.sequencerId() == node.id()
              : topology.shardsInSubtree(color.id()).stream()
                  .anyMatch(s -> s.replicaNodeIds().contains(node.id()));
      if (asked) {
        colors.add(color.id());
      }
    }
    return colors;
  }

  static ClusterStatus assemble(
      Topology topology, Map<String, Retention> retention, Map<Integer, NodeProbe.Result> results) {
    List<NodeStatus> nodes = new ArrayList<>();
    for (NodeAddress node : topology.nodes().values()) {
      NodeProbe.Result result = results.get(node.id());
      int epoch = -1;
      if (node.kind() == NodeAddress.Kind.SEQUENCER) {
        for (NodeProbe.ColorAnswer answer : result.colors().values()) {
          if (answer.error() == null) {
            epoch = Math.max(epoch, Sn.epoch(answer.tail()));
          }
        }
      }
      nodes.add(
          new NodeStatus(
              node.id(),
              node.kind().name().toLowerCase(java.util.Locale.ROOT),
              node.hostPort(),
              result.up(),
              result.problem(),
              epoch));
    }
    List<ColorStatus> colors = new ArrayList<>();
    for (Color color : topology.colors()) {
      colors.add(colorStatus(topology, color, retention.get(color.name()), results));
    }
    return new ClusterStatus(topology.version(), nodes, colors);
  }

  private static ColorStatus colorStatus(
      Topology topology, Color color, Retention retention, Map<Integer, NodeProbe.Result> results) {
    NodeProbe.ColorAnswer role = answer(results, color.sequencerId(), color.id());
    long tail = role == null ? -1 : role.tail();
    long trimPoint = -1;
    List<ShardStatus> shards = new ArrayList<>();
    for (Shard shard : topology.shardsInSubtree(color.id())) {
      List<ReplicaStatus> replicas = new ArrayList<>();
      for (int node : shard.replicaNodeIds()) {
        NodeProbe.ColorAnswer answer = answer(results, node, color.id());
        long replicaTail = answer == null ? -1 : answer.tail();
        if (answer != null) {
          trimPoint = Math.max(trimPoint, answer.trimPoint());
        }
        long lag =
            replicaTail >= 0 && tail >= 0 && Sn.epoch(replicaTail) == Sn.epoch(tail)
                ? Sn.counter(tail) - Sn.counter(replicaTail)
                : -1;
        replicas.add(new ReplicaStatus(node, replicaTail, lag));
      }
      shards.add(new ShardStatus(shard.id(), replicas));
    }
    String parent =
        color.parentId() == Color.NO_PARENT
            ? null
            : topology.color(color.parentId()).map(Color::name).orElse("?");
    return new ColorStatus(
        color.name(),
        parent,
        color.sequencerId(),
        trimPoint < 0 ? -1 : trimPoint + 1,
        tail,
        retention,
        shards);
  }

  private static NodeProbe.ColorAnswer answer(
      Map<Integer, NodeProbe.Result> results, int node, int colorId) {
    NodeProbe.Result result = results.get(node);
    if (result == null) {
      return null;
    }
    NodeProbe.ColorAnswer answer = result.colors().get(colorId);
    return answer == null || answer.error() != null ? null : answer;
  }
}
