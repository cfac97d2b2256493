package io.flexlog.server.control;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.NodeAddress.Kind;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import java.util.ArrayList;
import java.util.List;

/** Topologies for control-plane tests. */
final class TestTopologies {
  private TestTopologies() {}

  /**
   * Sequencer nodes 0 (global) and 1 (color left under global), replica nodes 10.. ({@code
   * replicaNodes} of them), one shard of color left on the first three replica nodes.
   */
  static Topology twoLevel(int replicaNodes) {
    List<NodeAddress> nodes = new ArrayList<>();
    nodes.add(new NodeAddress(0, Kind.SEQUENCER, "127.0.0.1", 7000));
    nodes.add(new NodeAddress(1, Kind.SEQUENCER, "127.0.0.1", 7001));
    for (int i = 0; i < replicaNodes; i++) {
      nodes.add(new NodeAddress(10 + i, Kind.REPLICA, "127.0.0.1", 7010 + i));
    }
    return new Topology(
        1,
        nodes,
        List.of(
            new Color(Color.GLOBAL_ID, Color.GLOBAL, Color.NO_PARENT, 0),
            new Color(1, "left", Color.GLOBAL_ID, 1)),
        List.of(new Shard(0, 1, List.of(10, 11, 12))));
  }
}
