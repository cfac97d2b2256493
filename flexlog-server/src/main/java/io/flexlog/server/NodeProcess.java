package io.flexlog.server;

import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Topology;
import io.flexlog.replica.node.ReplicaNode;
import io.flexlog.sequencer.SequencerNode;
import io.flexlog.server.config.ClusterFile;
import io.flexlog.server.config.NodeSettings;
import io.flexlog.server.control.AdminServer;
import io.flexlog.server.control.ClusterController;
import io.flexlog.server.control.HostPort;
import io.flexlog.server.control.MetadataStore;
import io.flexlog.server.control.TopologyBootstrap;
import io.flexlog.server.control.TopologyWatcher;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Optional;

/**
 * One node of a multi-process cluster with its control-plane duties:
 *
 * <ul>
 *   <li>every node starts with the topology of {@link TopologyBootstrap} (the cluster file, or the
 *       newer one in its data directory's {@link MetadataStore});
 *   <li>the sequencer node hosting the root color holds the durable cluster metadata and, when the
 *       cluster file gives it an {@code admin-port}, serves the admin service there;
 *   <li>every other node then watches that service and applies each new topology version: it stores
 *       the version in its data directory first, then updates the node.
 * </ul>
 */
public final class NodeProcess implements AutoCloseable {
  private final SequencerNode sequencer;
  private final ReplicaNode replica;
  private final ClusterController controller;
  private final AdminServer admin;
  private final TopologyWatcher watcher;
  private DataDirectoryLock lock;

  private NodeProcess(
      SequencerNode sequencer,
      ReplicaNode replica,
      ClusterController controller,
      AdminServer admin,
      TopologyWatcher watcher) {
    this.sequencer = sequencer;
    this.replica = replica;
    this.controller = controller;
    this.admin = admin;
    this.watcher = watcher;
  }

  /** How a node process starts once its data directory is locked. */
  @FunctionalInterface
  private interface Start {
    NodeProcess start() throws IOException, InterruptedException;
  }

  /**
   * Locks the node's data directory ({@link DataDirectoryLock}) before {@code start} reads or
   * writes anything there; a start that fails releases it and removes the directory if the lock
   * created it.
   */
  private static NodeProcess locked(NodeSettings settings, String holder, Start start)
      throws IOException, InterruptedException {
    DataDirectoryLock lock = DataDirectoryLock.acquire(settings.dataDir(), holder);
    try {
      NodeProcess process = start.start();
      process.lock = lock;
      return process;
    } catch (IOException | InterruptedException | RuntimeException | Error e) {
      lock.closeAfterFailedStart();
      throw e;
    }
  }

  /**
   * Starts a sequencer node; on the root's node also the cluster metadata and the admin service.
   *
   * @throws DataDirectoryLockedException when another process holds the data directory
   * @throws IOException when the data directory's metadata or epoch is corrupt or unwritable, or a
   *     port cannot be bound
   */
  public static NodeProcess startSequencer(
      ClusterFile file, NodeSettings settings, MeterRegistry registry)
      throws IOException, InterruptedException {
    requireKind(file, settings, NodeAddress.Kind.SEQUENCER);
    return locked(
        settings,
        "sequencer node " + settings.nodeId(),
        () -> startSequencerLocked(file, settings, registry));
  }

  private static NodeProcess startSequencerLocked(
      ClusterFile file, NodeSettings settings, MeterRegistry registry) throws IOException {
    MetadataStore store = new MetadataStore(settings.dataDir());
    boolean root = file.rootSequencerId() == settings.nodeId();
    Topology topology = TopologyBootstrap.resolve(file.topology(), store, root);
    SequencerNode node = Nodes.startSequencer(topology, settings, file.maxRecordBytes(), registry);
    try {
      Optional<HostPort> adminAddress = file.admin();
      if (adminAddress.isEmpty()) {
        return new NodeProcess(node, null, null, null, null);
      }
      if (root) {
        ClusterController controller =
            new ClusterController(topology, store, ClusterController.DEFAULT_APPLY_TIMEOUT);
        controller.addLocalNode(settings.nodeId(), node::updateTopology);
        AdminServer admin =
            AdminServer.start(adminAddress.get().host(), adminAddress.get().port(), controller);
        return new NodeProcess(node, null, controller, admin, null);
      }
      TopologyWatcher watcher =
          watchTopology(adminAddress.get(), settings, topology, store, node::updateTopology);
      return new NodeProcess(node, null, null, null, watcher);
    } catch (IOException | RuntimeException e) {
      node.close();
      throw e;
    }
  }

  /**
   * Starts a replica node and, when the cluster has an admin service, its topology watcher.
   *
   * @throws DataDirectoryLockedException when another process holds the data directory
   * @throws IOException when the data directory's metadata is corrupt or unwritable
   */
  public static NodeProcess startReplica(
      ClusterFile file, NodeSettings settings, MeterRegistry registry, PrintStream banner)
      throws IOException, InterruptedException {
    requireKind(file, settings, NodeAddress.Kind.REPLICA);
    return locked(
        settings,
        "replica node " + settings.nodeId(),
        () -> startReplicaLocked(file, settings, registry, banner));
  }

  private static NodeProcess startReplicaLocked(
      ClusterFile file, NodeSettings settings, MeterRegistry registry, PrintStream banner)
      throws IOException, InterruptedException {
    MetadataStore store = new MetadataStore(settings.dataDir());
    Topology topology = TopologyBootstrap.resolve(file.topology(), store, false);
    ReplicaNode node =
        Nodes.startReplica(topology, settings, file.maxRecordBytes(), registry, banner);
    Optional<HostPort> adminAddress = file.admin();
    if (adminAddress.isEmpty()) {
      return new NodeProcess(null, node, null, null, null);
    }
    try {
      TopologyWatcher watcher =
          watchTopology(adminAddress.get(), settings, topology, store, node::updateTopology);
      return new NodeProcess(null, node, null, null, watcher);
    } catch (RuntimeException e) {
      node.close();
      throw e;
    }
  }

  /**
   * Follows the admin service's topology from {@code topology} on: each new version is stored in
   * the data directory, then applied to the node.
   */
  private static TopologyWatcher watchTopology(
      HostPort admin,
      NodeSettings settings,
      Topology topology,
      MetadataStore store,
      TopologyWatcher.Applier node) {
    return TopologyWatcher.start(
        admin,
        settings.nodeId(),
        topology.version(),
        next -> {
          // Stored first: a restarted replica must recover the entries of shards it hosts now.
          store.write(next);
          node.apply(next);
        });
  }

  private static void requireKind(ClusterFile file, NodeSettings settings, NodeAddress.Kind kind) {
    NodeAddress self = file.topology().node(settings.nodeId());
    if (self.kind() != kind) {
      throw new IllegalArgumentException(
          "node "
              + self.id()
              + " is not a "
              + kind.name().toLowerCase(java.util.Locale.ROOT)
              + " in "
              + file.source());
    }
  }

  /** The sequencer node, or null in a replica process. */
  public SequencerNode sequencer() {
    return sequencer;
  }

  /** The replica node, or null in a sequencer process. */
  public ReplicaNode replica() {
    return replica;
  }

  /** The cluster metadata authority, on the root's node when it serves the admin service. */
  public Optional<ClusterController> controller() {
    return Optional.ofNullable(controller);
  }

  /** The admin service's address, on the root's node when it serves one. */
  public Optional<String> adminAddress() {
    return Optional.ofNullable(admin).map(AdminServer::hostPort);
  }

  /** The topology version this node runs. */
  public long topologyVersion() {
    return sequencer != null ? sequencer.topologyVersion() : replica.topologyVersion();
  }

  @Override
  public void close() {
    if (watcher != null) {
      watcher.close();
    }
    if (admin != null) {
      admin.close();
    }
    if (replica != null) {
      replica.close();
    }
    if (sequencer != null) {
      sequencer.close();
    }
    if (lock != null) {
      lock.close();
    }
  }
}
