package io.flexlog.sim;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.NodeAddress.Kind;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Clusters for the {@link SimWorld}, chosen by seed: a flat cluster (one sequencer node, one or two
 * shards of two or three replicas) or a tree (a root and two leaf sequencer nodes, a shard per
 * leaf, replica nodes that hold shards of both leaves, as {@code bin/flexlog dev --tree} does).
 * Sequencer node ids start at 0, replica node ids at 100. The failover modes use a flat cluster
 * with backup sequencer nodes; the tree failover mode uses the tree, the deep tree failover mode a
 * tree of three levels with a spare sequencer node.
 */
final class SimScenarios {
  private SimScenarios() {}

  record Scenario(String name, Topology topology) {}

  static Scenario forSeed(long seed, Random random) {
    return Math.floorMod(seed, 2L) == 0 ? flat(random) : tree(random);
  }

  /** The usual cluster of a fault mode. */
  static Scenario forMode(SimWorld.Faults faults, long seed, Random random) {
    return switch (faults) {
      case TREE_LEADER_FAIL -> failoverTree(random);
      case DEEP_TREE_FAIL -> failoverDeepTree(random);
      default -> faults.failover() ? failover(random) : forSeed(seed, random);
    };
  }

  /**
   * A flat cluster for the failover modes: two or three sequencer nodes, each a backup of the
   * {@code global} role that node 0 takes first, one or two shards of two or three replicas.
   */
  static Scenario failover(Random random) {
    int sequencers = random.nextInt(3) == 0 ? 2 : 3;
    Scenario flat = flat(random);
    Topology t = flat.topology();
    int replicaEnd = 100 + t.shards().stream().mapToInt(sh -> sh.replicaNodeIds().size()).sum();
    return new Scenario(
        flat.name() + ", " + sequencers + " sequencer nodes",
        build(sequencers, replicaEnd, t.colors(), t.shards()));
  }

  /**
   * A tree for the tree failover mode: {@code global} on node 0, its children {@code left} and
   * {@code right} on nodes 1 and 2, every sequencer node a backup of every role.
   */
  static Scenario failoverTree(Random random) {
    Scenario tree = tree(random);
    return new Scenario(tree.name() + ", 3 sequencer nodes backing up every role", tree.topology());
  }

  /** The node that no color names at first: the first backup in rank order of every role. */
  static final int SPARE = 0;

  /** The middle color of the deep tree. */
  static final int MID = 1;

  /** The leaf color of the deep tree. */
  static final int LEAF = 2;

  /**
   * A tree of three levels for the deep tree failover mode: {@code global} on node 1, its child
   * {@code mid} on node 2, whose child {@code leaf} is on node 3, and node 0 a spare that hosts
   * nothing at first; every sequencer node is a backup of every role, node 0 first in rank. A shard
   * of {@code leaf} and one of {@code mid}. When {@code mid}'s leader fails, node 0 takes the role
   * and then only forwards {@code global} further up: node 3's routes re-target to a node that does
   * not host the color they ask for (docs/architecture.md#sequencer-failover).
   */
  static Scenario failoverDeepTree(Random random) {
    int replicas = 2 + random.nextInt(2);
    List<Color> colors =
        List.of(
            new Color(0, Color.GLOBAL, Color.NO_PARENT, 1),
            new Color(MID, "mid", 0, 2),
            new Color(LEAF, "leaf", MID, 3));
    List<Integer> leaf = new ArrayList<>();
    List<Integer> mid = new ArrayList<>();
    for (int r = 0; r < replicas; r++) {
      leaf.add(100 + r);
      mid.add(100 + r + (random.nextBoolean() ? 0 : replicas));
    }
    List<Shard> shards = List.of(new Shard(0, LEAF, leaf), new Shard(1, MID, mid));
    return new Scenario(
        "three-level tree, shards of " + replicas + ", a spare among 4 sequencer nodes",
        build(4, 100 + 2 * replicas, colors, shards));
  }

  private static Scenario flat(Random random) {
    int shards = 1 + random.nextInt(2);
    int replicas = 2 + random.nextInt(2);
    List<Color> colors = List.of(new Color(0, Color.GLOBAL, Color.NO_PARENT, 0));
    List<Shard> shardList = new ArrayList<>();
    int next = 100;
    for (int s = 0; s < shards; s++) {
      List<Integer> placement = new ArrayList<>();
      for (int r = 0; r < replicas; r++) {
        placement.add(next++);
      }
      shardList.add(new Shard(s, 0, placement));
    }
    return new Scenario(
        "flat, " + shards + " shard(s) of " + replicas, build(1, next, colors, shardList));
  }

  private static Scenario tree(Random random) {
    int replicas = 2 + random.nextInt(2);
    List<Color> colors =
        List.of(
            new Color(0, Color.GLOBAL, Color.NO_PARENT, 0),
            new Color(1, "left", 0, 1),
            new Color(2, "right", 0, 2));
    List<Integer> left = new ArrayList<>();
    List<Integer> right = new ArrayList<>();
    for (int r = 0; r < replicas; r++) {
      left.add(100 + r);
      right.add(100 + r + (random.nextBoolean() ? 0 : replicas));
    }
    int next = 100 + 2 * replicas;
    List<Shard> shards = List.of(new Shard(0, 1, left), new Shard(1, 2, right));
    return new Scenario("tree, shards of " + replicas, build(3, next, colors, shards));
  }

  private static Topology build(
      int sequencers, int replicaEnd, List<Color> colors, List<Shard> shards) {
    List<NodeAddress> nodes = new ArrayList<>();
    for (int n = 0; n < sequencers; n++) {
      nodes.add(new NodeAddress(n, Kind.SEQUENCER, "127.0.0.1", 0));
    }
    for (int r = 100; r < replicaEnd; r++) {
      boolean used = false;
      for (Shard shard : shards) {
        used |= shard.replicaNodeIds().contains(r);
      }
      if (used) {
        nodes.add(new NodeAddress(r, Kind.REPLICA, "127.0.0.1", 0));
      }
    }
    return new Topology(1, nodes, colors, shards);
  }
}
