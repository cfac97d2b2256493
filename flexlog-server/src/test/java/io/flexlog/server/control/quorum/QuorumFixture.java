package io.flexlog.server.control.quorum;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.NodeAddress.Kind;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.core.testing.FreePorts;
import io.flexlog.server.control.ClusterController;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Three metadata quorum members in this process (nodes 0, 1, 2, sequencer nodes of a topology with
 * replica nodes 10..12), each with its own data directory, that a test stops and restarts; each
 * records the versions its local node was given.
 */
final class QuorumFixture implements AutoCloseable {
  static final int PEERS = 3;

  final QuorumConfig config;
  final Topology initial;
  private final Path root;
  private final QuorumMember[] members = new QuorumMember[PEERS];
  final Map<Integer, Long> appliedVersion = new ConcurrentHashMap<>();

  QuorumFixture(Path root, Duration timeout, long snapshotEntries) {
    this.root = root;
    int base = FreePorts.consecutive(2 * PEERS);
    List<QuorumConfig.Peer> peers = new ArrayList<>();
    for (int i = 0; i < PEERS; i++) {
      peers.add(new QuorumConfig.Peer(i, "127.0.0.1", base + 2 * i + 1, base + 2 * i));
    }
    config = new QuorumConfig(peers, timeout, snapshotEntries);
    List<NodeAddress> nodes = new ArrayList<>();
    for (int i = 0; i < PEERS; i++) {
      nodes.add(new NodeAddress(i, Kind.SEQUENCER, "127.0.0.1", 1000 + i));
      nodes.add(new NodeAddress(10 + i, Kind.REPLICA, "127.0.0.1", 1010 + i));
    }
    initial =
        new Topology(
            1,
            nodes,
            List.of(new Color(Color.GLOBAL_ID, Color.GLOBAL, Color.NO_PARENT, 0)),
            List.of(new Shard(0, Color.GLOBAL_ID, List.of(10, 11, 12))));
  }

  QuorumFixture startAll() throws IOException {
    for (int i = 0; i < PEERS; i++) {
      start(i);
    }
    return this;
  }

  void start(int nodeId) throws IOException {
    members[nodeId] =
        QuorumMember.start(
            config,
            nodeId,
            root.resolve("node-" + nodeId),
            initial,
            topology -> appliedVersion.merge(nodeId, topology.version(), Math::max),
            Duration.ofSeconds(2));
  }

  void stop(int nodeId) {
    members[nodeId].close();
    members[nodeId] = null;
  }

  QuorumMember member(int nodeId) {
    return members[nodeId];
  }

  String admin(int nodeId) {
    return config.peer(nodeId).orElseThrow().admin().toString();
  }

  Path storage(int nodeId) {
    return root.resolve("node-" + nodeId).resolve(QuorumMember.STORAGE_DIR);
  }

  /** The node that leads now, waiting for an election for up to {@code timeout}. */
  int awaitLeader(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      for (int i = 0; i < PEERS; i++) {
        if (members[i] != null && members[i].quorum().isLeader()) {
          return i;
        }
      }
      Thread.sleep(20);
    }
    throw new AssertionError("no metadata leader within " + timeout);
  }

  ClusterController controller(int nodeId) {
    return members[nodeId].controller();
  }

  @Override
  public void close() {
    for (int i = 0; i < PEERS; i++) {
      if (members[i] != null) {
        stop(i);
      }
    }
  }
}
