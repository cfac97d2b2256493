package io.flexlog.server.status;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.ReplicaDescription;
import io.flexlog.core.model.Retention;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.TierUsage;
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
 * epoch, for replica nodes their records and bytes per storage tier; every color with its head and
 * tail, its retention and, per shard, each replica's tail, records and how far it lags behind the
 * color's tail. Gathered with one connection per node (TAIL_REQUEST, and REPLICA_STATUS to
 * replicas); the retention is the one the color's replicas apply.
 *
 * @param topologyVersion the topology version the client fetched
 */
public record ClusterStatus(
    long topologyVersion, List<NodeStatus> nodes, List<ColorStatus> colors) {
  /**
   * @param problem why the node is down or did not answer fully, null when all is well
   * @param epoch a sequencer node's current epoch (from its roles' tails), -1 if unknown or a
   *     replica
   * @param tiers a replica node's records and bytes per storage tier, null if unknown or a
   *     sequencer
   */
  public record NodeStatus(
      int id,
      String kind,
      String address,
      boolean up,
      String problem,
      int epoch,
      TierUsage tiers) {}

  /**
   * @param head the first SN that is not trimmed, -1 if no replica answered
   * @param tail the last SN the color's role issued, -1 if its sequencer did not answer
   * @param retention the color's retention (docs/architecture.md#retention) as its first answering
   *     replica applies it, null when no replica answered
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
   * @param records the color's records above its trim point on the replica, -1 if unknown
   */
  public record ReplicaStatus(int node, long tail, long lag, long records) {}

  /** Asks every node of {@code topology}; each node gets {@code timeout}. */
  public static ClusterStatus gather(Topology topology, Duration timeout) {
    EventLoopGroup group = Transport.eventLoops("flexlog-status", 1);
    try {
      Map<Integer, NodeProbe.Result> results = new TreeMap<>();
      for (NodeAddress node : topology.nodes().values()) {
        results.put(
            node.id(),
            NodeProbe.probe(
                group,
                node.host(),
                node.port(),
                colorsAsked(topology, node),
                node.kind() == NodeAddress.Kind.REPLICA,
                timeout));
      }
      return assemble(topology, results);
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

  static ClusterStatus assemble(Topology topology, Map<Integer, NodeProbe.Result> results) {
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
              epoch,
              result.replica() == null ? null : result.replica().tiers()));
    }
    List<ColorStatus> colors = new ArrayList<>();
    for (Color color : topology.colors()) {
      colors.add(colorStatus(topology, color, results));
    }
    return new ClusterStatus(topology.version(), nodes, colors);
  }

  private static ColorStatus colorStatus(
      Topology topology, Color color, Map<Integer, NodeProbe.Result> results) {
    NodeProbe.ColorAnswer role = answer(results, color.sequencerId(), color.id());
    long tail = role == null ? -1 : role.tail();
    long trimPoint = -1;
    Retention retention = null;
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
        ReplicaDescription.ColorState state = replicaState(results, node, color.id());
        if (state != null && retention == null) {
          retention = state.retention();
        }
        replicas.add(
            new ReplicaStatus(node, replicaTail, lag, state == null ? -1 : state.records()));
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

  private static ReplicaDescription.ColorState replicaState(
      Map<Integer, NodeProbe.Result> results, int node, int colorId) {
    NodeProbe.Result result = results.get(node);
    if (result == null || result.replica() == null) {
      return null;
    }
    for (ReplicaDescription.ColorState state : result.replica().colors()) {
      if (state.colorId() == colorId) {
        return state;
      }
    }
    return null;
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
