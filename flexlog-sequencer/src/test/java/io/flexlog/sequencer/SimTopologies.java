package io.flexlog.sequencer;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.NodeAddress.Kind;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Sequencer trees for the {@link TreeSimulation}, chosen by seed: a root with 2-4 leaves, a chain
 * of 3-4 nodes, a node hosting a color subtree (in-memory forwarding), random placements (which
 * include paths that leave a node and come back to it), each optionally growing by later topology
 * versions (new colors and shards, as AddColor makes).
 */
final class SimTopologies {
  private SimTopologies() {}

  /** A named tree: its first topology and the later versions the simulation hands out. */
  record Scenario(String name, List<Topology> versions) {
    Topology initial() {
      return versions.get(0);
    }
  }

  static Scenario forSeed(long seed, Random random) {
    Builder b =
        switch ((int) Math.floorMod(seed, 4L)) {
          case 0 -> star(random);
          case 1 -> chain(random);
          case 2 -> nested(random);
          default -> randomTree(random);
        };
    List<Topology> versions = new ArrayList<>();
    versions.add(b.build(1));
    int growth = random.nextInt(3);
    for (int v = 2; v <= 1 + growth; v++) {
      b.grow(random);
      versions.add(b.build(v));
    }
    return new Scenario(b.name + (growth > 0 ? "+" + growth + " versions" : ""), versions);
  }

  private static Builder star(Random random) {
    int leaves = 2 + random.nextInt(3);
    Builder b = new Builder("star of " + leaves + " leaves", leaves + 1);
    b.color(Color.GLOBAL, Color.NO_PARENT, 0);
    for (int i = 1; i <= leaves; i++) {
      int color = b.color("leaf" + i, 0, i);
      b.shards(color, 1 + random.nextInt(2), random);
    }
    if (random.nextBoolean()) {
      b.shards(0, 1, random);
    }
    return b;
  }

  private static Builder chain(Random random) {
    int depth = 3 + random.nextInt(2);
    Builder b = new Builder("chain of " + depth + " nodes", depth);
    b.color(Color.GLOBAL, Color.NO_PARENT, 0);
    for (int i = 1; i < depth; i++) {
      b.color("level" + i, i - 1, i);
    }
    b.shards(depth - 1, 1 + random.nextInt(2), random);
    if (random.nextBoolean()) {
      b.shards(1 + random.nextInt(depth - 1), 1, random);
    }
    return b;
  }

  private static Builder nested(Random random) {
    Builder b = new Builder("subtree on one node", 4);
    b.color(Color.GLOBAL, Color.NO_PARENT, 0);
    int a = b.color("a", 0, 1);
    int a1 = b.color("a1", a, 1);
    int a2 = b.color("a2", a, 1);
    int bee = b.color("b", 0, 2);
    int deep = b.color("a1x", a1, 3);
    b.shards(a1, 1, random);
    b.shards(a2, 1, random);
    b.shards(bee, 1, random);
    b.shards(deep, 1, random);
    if (random.nextBoolean()) {
      b.shards(a, 1, random);
    }
    return b;
  }

  private static Builder randomTree(Random random) {
    int nodes = 2 + random.nextInt(3);
    Builder b = new Builder("random placement on " + nodes + " nodes", nodes);
    b.color(Color.GLOBAL, Color.NO_PARENT, random.nextInt(nodes));
    int colors = 3 + random.nextInt(4);
    for (int i = 1; i < colors; i++) {
      b.color("c" + i, random.nextInt(i), random.nextInt(nodes));
    }
    int shards = 2 + random.nextInt(3);
    for (int s = 0; s < shards; s++) {
      b.shards(random.nextInt(colors), 1, random);
    }
    return b;
  }

  /** Accumulates nodes, colors and shards; {@link #build} snapshots them as one version. */
  private static final class Builder {
    final String name;
    final int sequencerNodes;
    final List<Color> colors = new ArrayList<>();
    final List<Shard> shards = new ArrayList<>();
    int nextReplica = 100;

    Builder(String name, int sequencerNodes) {
      this.name = name;
      this.sequencerNodes = sequencerNodes;
    }

    int color(String name, int parent, int node) {
      int id = colors.size();
      colors.add(new Color(id, name, parent, node));
      return id;
    }

    void shards(int colorId, int count, Random random) {
      for (int i = 0; i < count; i++) {
        int replicas = 1 + random.nextInt(3);
        List<Integer> placement = new ArrayList<>();
        for (int r = 0; r < replicas; r++) {
          placement.add(nextReplica++);
        }
        shards.add(new Shard(1000 + shards.size(), colorId, placement));
      }
    }

    /** A new color under a random existing one on a random node, with a shard; or a new shard. */
    void grow(Random random) {
      if (random.nextInt(3) > 0) {
        int color =
            color(
                "grown" + colors.size(),
                random.nextInt(colors.size()),
                random.nextInt(sequencerNodes));
        shards(color, 1, random);
      } else {
        shards(random.nextInt(colors.size()), 1, random);
      }
    }

    Topology build(long version) {
      List<NodeAddress> nodes = new ArrayList<>();
      for (int n = 0; n < sequencerNodes; n++) {
        nodes.add(new NodeAddress(n, Kind.SEQUENCER, "127.0.0.1", 0));
      }
      for (int r = 100; r < nextReplica; r++) {
        nodes.add(new NodeAddress(r, Kind.REPLICA, "127.0.0.1", 0));
      }
      return new Topology(version, nodes, List.copyOf(colors), List.copyOf(shards));
    }
  }
}
