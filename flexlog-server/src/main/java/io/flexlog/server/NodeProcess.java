package io.flexlog.server;

import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Topology;
import io.flexlog.replica.node.ReplicaNode;
import io.flexlog.sequencer.SequencerNode;
import io.flexlog.sequencer.ordering.IssueGate;
import io.flexlog.server.config.ClusterFile;
import io.flexlog.server.config.NodeSettings;
import io.flexlog.server.control.AdminFrameRelay;
import io.flexlog.server.control.ClusterController;
import io.flexlog.server.control.MetadataStore;
import io.flexlog.server.control.TopologyBootstrap;
import io.flexlog.server.control.TopologyWatcher;
import io.flexlog.server.control.quorum.QuorumConfig;
import io.flexlog.server.control.quorum.QuorumJoinMarks;
import io.flexlog.server.control.quorum.QuorumMember;
import io.flexlog.server.control.quorum.RoleLeaseKeeper;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One node of a multi-process cluster with its control-plane duties:
 *
 * <ul>
 *   <li>every node starts with the topology of {@link TopologyBootstrap} (the cluster file, or the
 *       newer one in its data directory's {@link MetadataStore});
 *   <li>the nodes with an {@code admin-port} form the metadata quorum: each runs its Raft peer, a
 *       controller and the admin service ({@link QuorumMember});
 *   <li>every other node watches the quorum's admin services and applies each new topology version:
 *       it stores the version in its data directory first, then updates the node.
 * </ul>
 */
public final class NodeProcess implements AutoCloseable {
  /** Gauge: roles this sequencer node may issue SNs for now (docs/operations.md#metrics). */
  public static final String ROLES_LEASED = "flexlog.sequencer.roles.leased";

  private final SequencerNode sequencer;
  private final ReplicaNode replica;
  private final QuorumMember member;
  private final TopologyWatcher watcher;
  private AdminFrameRelay relay;
  private DataDirectoryLock lock;
  private MeterRegistry registry;
  private Meter leasedRoles;
  private QuorumJoinMarks sharedMarks;

  private NodeProcess(
      SequencerNode sequencer, ReplicaNode replica, QuorumMember member, TopologyWatcher watcher) {
    this.sequencer = sequencer;
    this.replica = replica;
    this.member = member;
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
   * Starts a sequencer node with its control-plane duties ({@link #control}).
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
    Topology topology = TopologyBootstrap.resolve(file.topology(), store, false);
    Optional<QuorumConfig> quorum = file.quorum();
    boolean failover =
        file.failover().isPresent()
            && quorum.isPresent()
            && quorum.get().peer(settings.nodeId()).isPresent();
    // With failover, roles issue only under a lease, which the keeper below starts taking.
    AtomicReference<RoleLeaseKeeper> keeper = new AtomicReference<>();
    IssueGate gate =
        failover
            ? new IssueGate() {
              @Override
              public boolean mayIssue(int colorId, int epoch) {
                RoleLeaseKeeper k = keeper.get();
                return k != null && k.mayIssue(colorId, epoch);
              }

              @Override
              public boolean tookEpoch(int colorId, int epoch) {
                RoleLeaseKeeper k = keeper.get();
                return k != null && k.tookEpoch(colorId, epoch);
              }

              @Override
              public void epochExhausted(int colorId, int epoch) {
                RoleLeaseKeeper k = keeper.get();
                if (k != null) {
                  k.epochExhausted(colorId, epoch);
                }
              }
            }
            : IssueGate.ALWAYS;
    // With failover, join marks follow the role through the quorum
    // (docs/architecture.md#join-marks).
    QuorumJoinMarks sharedMarks = failover ? new QuorumJoinMarks(settings.nodeId()) : null;
    SequencerNode node;
    try {
      node =
          Nodes.startSequencer(
              topology, settings, file.maxRecordBytes(), registry, gate, sharedMarks);
    } catch (IOException | RuntimeException e) {
      if (sharedMarks != null) {
        sharedMarks.close();
      }
      throw e;
    }
    try {
      NodeProcess process =
          control(file, settings, topology, store, node::updateTopology, node, null);
      process.sharedMarks = sharedMarks;
      if (failover) {
        sharedMarks.attach(process.member.quorum());
        RoleLeaseKeeper kept =
            process.member.keepRoleLeases(
                node.epoch(), sequencerPeers(file, quorum.get()), file.failover().get());
        keeper.set(kept);
        process.registry = registry;
        process.leasedRoles =
            Gauge.builder(ROLES_LEASED, kept, RoleLeaseKeeper::leasedRoles)
                .tag("node", Integer.toString(settings.nodeId()))
                .description("roles whose lease this node holds: it may issue their SNs now")
                .strongReference(true)
                .register(registry);
      }
      return process;
    } catch (IOException | RuntimeException e) {
      node.close();
      if (sharedMarks != null) {
        sharedMarks.close();
      }
      throw e;
    }
  }

  /** The backups of every role: the quorum's sequencer nodes, in the cluster file's order. */
  private static List<Integer> sequencerPeers(ClusterFile file, QuorumConfig quorum) {
    return quorum.nodeIds().stream()
        .filter(id -> file.topology().node(id).kind() == NodeAddress.Kind.SEQUENCER)
        .toList();
  }

  /**
   * Starts a replica node with its control-plane duties ({@link #control}).
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
    try {
      return control(file, settings, topology, store, node::updateTopology, null, node);
    } catch (IOException | RuntimeException e) {
      node.close();
      throw e;
    }
  }

  /**
   * A node of the metadata quorum runs its member of it (peer, controller, admin service); every
   * other node watches the quorum's admin services. Either way each new topology version is stored
   * in the data directory: on a replica node before it is applied, since a restarted replica must
   * recover the entries of the shards it hosts now; on a sequencer node after, since the fsync
   * would otherwise delay a failover's new leader, and a sequencer restarted on an older version
   * issues nothing it should not: its roles issue only under a lease its new incarnation takes
   * (docs/architecture.md, "Sequencer failover"). Without a quorum the topology is static.
   */
  private static NodeProcess control(
      ClusterFile file,
      NodeSettings settings,
      Topology topology,
      MetadataStore store,
      TopologyWatcher.Applier node,
      SequencerNode sequencer,
      ReplicaNode replica)
      throws IOException {
    Optional<QuorumConfig> quorum = file.quorum();
    TopologyWatcher.Applier persistAndApply =
        sequencer != null
            ? next -> {
              node.apply(next);
              store.write(next);
            }
            : next -> {
              store.write(next);
              node.apply(next);
            };
    if (quorum.isEmpty()) {
      return new NodeProcess(sequencer, replica, null, null);
    }
    NodeProcess process =
        quorum.get().peer(settings.nodeId()).isPresent()
            ? new NodeProcess(
                sequencer,
                replica,
                startMember(quorum.get(), settings, topology, persistAndApply),
                null)
            : new NodeProcess(
                sequencer,
                replica,
                null,
                TopologyWatcher.start(
                    quorum.get().admins(), settings.nodeId(), topology.version(), persistAndApply));
    process.relay =
        new AdminFrameRelay(
            relayTargets(quorum.get(), settings.nodeId()),
            file.maxRecordBytes(),
            AdminFrameRelay.DEFAULT_TIMEOUT);
    if (sequencer != null) {
      sequencer.adminRelay(process.relay);
    } else {
      replica.adminRelay(process.relay);
    }
    return process;
  }

  private static QuorumMember startMember(
      QuorumConfig quorum,
      NodeSettings settings,
      Topology topology,
      TopologyWatcher.Applier persistAndApply)
      throws IOException {
    return QuorumMember.start(
        quorum,
        settings.nodeId(),
        settings.dataDir(),
        topology,
        persistAndApply::apply,
        ClusterController.DEFAULT_APPLY_TIMEOUT);
  }

  /**
   * The admin services this node relays data-plane admin requests to: its own first, on a quorum
   * node, then the others in the cluster file's order.
   */
  static List<AdminFrameRelay.Target> relayTargets(QuorumConfig quorum, int nodeId) {
    List<AdminFrameRelay.Target> targets = new ArrayList<>();
    quorum.peer(nodeId).ifPresent(p -> targets.add(new AdminFrameRelay.Target(nodeId, p.admin())));
    for (QuorumConfig.Peer peer : quorum.peers()) {
      if (peer.nodeId() != nodeId) {
        targets.add(new AdminFrameRelay.Target(peer.nodeId(), peer.admin()));
      }
    }
    return targets;
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

  /** The cluster metadata controller, on a node of the metadata quorum. */
  public Optional<ClusterController> controller() {
    return Optional.ofNullable(member).map(QuorumMember::controller);
  }

  /** This node's member of the metadata quorum, if it is one. */
  public Optional<QuorumMember> quorumMember() {
    return Optional.ofNullable(member);
  }

  /** The admin service's address, on a node of the metadata quorum. */
  public Optional<String> adminAddress() {
    return Optional.ofNullable(member).map(QuorumMember::adminAddress);
  }

  /**
   * Whether this sequencer node holds its roles under leases and backs up every other role
   * (sequencer failover, docs/architecture.md#sequencer-failover).
   */
  public boolean failover() {
    return leasedRoles != null;
  }

  /** The topology version this node runs. */
  public long topologyVersion() {
    return sequencer != null ? sequencer.topologyVersion() : replica.topologyVersion();
  }

  @Override
  public void close() {
    if (leasedRoles != null) {
      registry.remove(leasedRoles);
    }
    if (relay != null) {
      relay.close();
    }
    if (watcher != null) {
      watcher.close();
    }
    if (member != null) {
      member.close();
    }
    if (replica != null) {
      replica.close();
    }
    if (sequencer != null) {
      sequencer.close();
    }
    if (sharedMarks != null) {
      sharedMarks.close();
    }
    if (lock != null) {
      lock.close();
    }
  }
}
