package io.flexlog.server.control.quorum;

import io.flexlog.server.control.HostPort;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The metadata quorum of a cluster (docs/architecture.md, "Metadata quorum"): its nodes and how
 * long an admin call waits for it.
 *
 * @param peers the quorum's nodes, by node id
 * @param requestTimeout how long a change or read waits for a leader that a majority follows before
 *     it fails with {@code METADATA_UNAVAILABLE}
 * @param snapshotEntries committed entries after which a node snapshots its state and purges the
 *     log before it
 */
public record QuorumConfig(List<Peer> peers, Duration requestTimeout, long snapshotEntries) {
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(5);
  public static final long DEFAULT_SNAPSHOT_ENTRIES = 1000;

  /**
   * A node of the quorum.
   *
   * @param raftPort where its Ratis server listens (peer traffic)
   * @param adminPort where its admin gRPC service listens
   */
  public record Peer(int nodeId, String host, int raftPort, int adminPort) {
    public HostPort admin() {
      return new HostPort(host, adminPort);
    }

    String raftAddress() {
      return host + ":" + raftPort;
    }
  }

  public QuorumConfig {
    peers = List.copyOf(peers);
    if (peers.isEmpty()) {
      throw new IllegalArgumentException("a metadata quorum needs at least one node");
    }
    if (requestTimeout.isNegative() || requestTimeout.isZero()) {
      throw new IllegalArgumentException("requestTimeout must be > 0, got " + requestTimeout);
    }
    if (snapshotEntries < 1) {
      throw new IllegalArgumentException("snapshotEntries must be >= 1, got " + snapshotEntries);
    }
  }

  public Optional<Peer> peer(int nodeId) {
    return peers.stream().filter(p -> p.nodeId() == nodeId).findFirst();
  }

  /** The admin addresses of every quorum node, in node-id order of the cluster file. */
  public List<HostPort> admins() {
    return peers.stream().map(Peer::admin).toList();
  }

  /** The node ids, for messages. */
  public List<Integer> nodeIds() {
    return peers.stream().map(Peer::nodeId).toList();
  }
}
