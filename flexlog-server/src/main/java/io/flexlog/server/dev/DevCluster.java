package io.flexlog.server.dev;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.replica.atomic.AtomicConfig;
import io.flexlog.replica.node.ReplicaNode;
import io.flexlog.replica.replication.ReplicaLimits;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.tier.TieredStorageConfig;
import io.flexlog.sequencer.SequencerNode;
import io.flexlog.server.DataDirectoryLock;
import io.flexlog.server.Nodes;
import io.flexlog.server.config.ClusterFile;
import io.flexlog.server.config.ClusterFileDef;
import io.flexlog.server.config.NodeSettings;
import io.flexlog.server.control.AdminFrameRelay;
import io.flexlog.server.control.AdminServer;
import io.flexlog.server.control.ClusterController;
import io.flexlog.server.control.HostPort;
import io.flexlog.server.control.MetadataStore;
import io.flexlog.server.control.TopologyBootstrap;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * An embedded cluster in one process on 127.0.0.1, with data under {@code dataDir} ({@code
 * sequencer-N} and {@code replica-N} per node) and the admin gRPC service, whose requests every
 * node also relays from the data plane ({@link AdminFrameRelay}). Restarting on the same directory
 * keeps every record and every color added since (the root's cluster metadata lives in {@code
 * sequencer-0}). Two layouts, node {@code i} listening on {@code port + i}:
 *
 * <ul>
 *   <li>{@link Layout#FLAT}: sequencer node 0 hosts {@code global}; one shard of three replicas
 *       (replica nodes 1-3);
 *   <li>{@link Layout#TREE}: sequencer node 0 hosts the root {@code global}, nodes 1 and 2 host its
 *       children {@code left} and {@code right}; each leaf has two shards of three replicas on
 *       replica nodes 3-8: replica nodes 3-5 hold the first shard of each leaf (shards 0 and 2),
 *       nodes 6-8 the second (shards 1 and 3), so every replica node talks to both leaf sequencers.
 * </ul>
 *
 * <p>All nodes run in this process, so a new topology (AddColor) is applied to them directly by the
 * {@link ClusterController}: sequencer nodes first, then replica nodes.
 */
public final class DevCluster implements AutoCloseable {
  public static final String HOST = "127.0.0.1";

  /** Replica nodes of the flat layout. */
  public static final int REPLICAS = 3;

  /** The admin port is the bootstrap port plus this, unless given. */
  public static final int ADMIN_PORT_OFFSET = 20;

  /** The node (and data directory) that hosts the root color and the cluster metadata. */
  public static final int ROOT_NODE = 0;

  public enum Layout {
    FLAT,
    TREE
  }

  /**
   * What differs between dev clusters.
   *
   * @param port the root sequencer's port (the bootstrap address); node {@code i} uses {@code port
   *     + i}
   * @param adminPort the admin service's port; 0 picks a free one
   * @param pmBytes each replica's PM log capacity
   * @param cacheBytes each replica's off-heap cache budget, 0 for none
   * @param atomicAbandonAfter how long after its last STAGE a replica aborts an atomic group that
   *     got no commit ({@code atomic-abandon-after-ms}); tests of a crashed client shorten it
   */
  public record Options(
      Path dataDir,
      int port,
      String engine,
      DurabilityMode durability,
      long pmBytes,
      long cacheBytes,
      Layout layout,
      int adminPort,
      Duration atomicAbandonAfter) {
    public Options {
      ClusterFileDef.ATOMIC_ABANDON_AFTER.validate(atomicAbandonAfter);
    }

    /** Options with the default abandon time of atomic groups. */
    public Options(
        Path dataDir,
        int port,
        String engine,
        DurabilityMode durability,
        long pmBytes,
        long cacheBytes,
        Layout layout,
        int adminPort) {
      this(
          dataDir,
          port,
          engine,
          durability,
          pmBytes,
          cacheBytes,
          layout,
          adminPort,
          AtomicConfig.DEFAULT_ABANDON_AFTER);
    }

    /** A flat cluster with the default cache budget and the admin service on a free port. */
    public Options(Path dataDir, int port, String engine, DurabilityMode durability, long pmBytes) {
      this(dataDir, port, engine, durability, pmBytes, Layout.FLAT, 0);
    }

    /** A flat cluster with the admin service on a free port. */
    public Options(
        Path dataDir,
        int port,
        String engine,
        DurabilityMode durability,
        long pmBytes,
        long cacheBytes) {
      this(dataDir, port, engine, durability, pmBytes, cacheBytes, Layout.FLAT, 0);
    }

    /** Options with the default cache budget. */
    public Options(
        Path dataDir,
        int port,
        String engine,
        DurabilityMode durability,
        long pmBytes,
        Layout layout,
        int adminPort) {
      this(
          dataDir,
          port,
          engine,
          durability,
          pmBytes,
          TieredStorageConfig.DEFAULT_CACHE_BYTES,
          layout,
          adminPort);
    }

    /** These options with another abandon time of atomic groups. */
    public Options withAtomicAbandonAfter(Duration abandonAfter) {
      return new Options(
          dataDir, port, engine, durability, pmBytes, cacheBytes, layout, adminPort, abandonAfter);
    }
  }

  private final Layout layout;
  private final DataDirectoryLock lock;
  private final List<SequencerNode> sequencers;
  private final List<ReplicaNode> replicas;
  // One per node directory, so that a node command on dev's node directory is refused as well.
  private final List<DataDirectoryLock> nodeLocks = new ArrayList<>();
  private ClusterController controller;
  private AdminServer admin;
  private AdminFrameRelay relay;

  private DevCluster(
      Layout layout,
      DataDirectoryLock lock,
      List<SequencerNode> sequencers,
      List<ReplicaNode> replicas) {
    this.layout = layout;
    this.lock = lock;
    this.sequencers = sequencers;
    this.replicas = replicas;
  }

  /** The flat layout's topology: sequencer node 0 on {@code port}, replica nodes 1-3 after it. */
  public static Topology topology(int port) {
    return topology(Layout.FLAT, port);
  }

  public static Topology topology(Layout layout, int port) {
    List<NodeAddress> nodes = new ArrayList<>();
    if (layout == Layout.FLAT) {
      nodes.add(new NodeAddress(0, NodeAddress.Kind.SEQUENCER, HOST, port));
      List<Integer> replicaIds = new ArrayList<>();
      for (int i = 1; i <= REPLICAS; i++) {
        nodes.add(new NodeAddress(i, NodeAddress.Kind.REPLICA, HOST, port + i));
        replicaIds.add(i);
      }
      return new Topology(
          1,
          nodes,
          List.of(new Color(Color.GLOBAL_ID, Color.GLOBAL, Color.NO_PARENT, 0)),
          List.of(new Shard(0, Color.GLOBAL_ID, replicaIds)));
    }
    for (int i = 0; i <= 2; i++) {
      nodes.add(new NodeAddress(i, NodeAddress.Kind.SEQUENCER, HOST, port + i));
    }
    for (int i = 3; i <= 8; i++) {
      nodes.add(new NodeAddress(i, NodeAddress.Kind.REPLICA, HOST, port + i));
    }
    Color global = new Color(Color.GLOBAL_ID, Color.GLOBAL, Color.NO_PARENT, 0);
    Color left = new Color(1, "left", global.id(), 1);
    Color right = new Color(2, "right", global.id(), 2);
    return new Topology(
        1,
        nodes,
        List.of(global, left, right),
        List.of(
            new Shard(0, left.id(), List.of(3, 4, 5)),
            new Shard(1, left.id(), List.of(6, 7, 8)),
            new Shard(2, right.id(), List.of(3, 4, 5)),
            new Shard(3, right.id(), List.of(6, 7, 8))));
  }

  /** The number of nodes of a layout; they use ports {@code port .. port + nodes - 1}. */
  public static int nodeCount(Layout layout) {
    return topology(layout, 1).nodes().size();
  }

  public static DevCluster start(Options options, MeterRegistry registry, PrintStream banner)
      throws Exception {
    return start(topology(options.layout(), options.port()), options, registry, banner);
  }

  /**
   * Starts a cluster of any shape in one process: every sequencer and replica node of {@code
   * configured}, each with data under the options' data directory. The port in {@code options} is
   * unused; the topology's addresses are.
   *
   * <p>The data directory is locked first ({@link DataDirectoryLock}): a directory another process
   * uses is refused before anything in it is read or written, and a start that fails removes the
   * directory again if it created it.
   *
   * @throws io.flexlog.server.DataDirectoryLockedException when another process holds the directory
   */
  public static DevCluster start(
      Topology configured, Options options, MeterRegistry registry, PrintStream banner)
      throws Exception {
    DataDirectoryLock lock = DataDirectoryLock.acquire(options.dataDir(), "flexlog dev cluster");
    DevCluster cluster =
        new DevCluster(options.layout(), lock, new ArrayList<>(), new ArrayList<>());
    try {
      cluster.startNodes(configured, options, registry, banner);
    } catch (Exception | Error e) {
      cluster.closeNodes();
      cluster.nodeLocks.forEach(DataDirectoryLock::closeAfterFailedStart);
      lock.closeAfterFailedStart();
      throw e;
    }
    return cluster;
  }

  private void startNodes(
      Topology configured, Options options, MeterRegistry registry, PrintStream banner)
      throws Exception {
    MetadataStore store = new MetadataStore(dataDir(options, ROOT_NODE, true));
    requireSameLayout(store, configured, options);
    Topology topology = TopologyBootstrap.resolve(configured, store, true);
    int maxRecordBytes = ReplicaLimits.DEFAULT_MAX_RECORD_BYTES;
    for (NodeAddress node : topology.nodes().values()) {
      if (node.kind() == NodeAddress.Kind.SEQUENCER) {
        sequencers.add(
            Nodes.startSequencer(
                topology,
                settings(options, node.id(), lockedDataDir(options, node.id(), true)),
                maxRecordBytes,
                registry));
      }
    }
    for (NodeAddress node : topology.nodes().values()) {
      if (node.kind() == NodeAddress.Kind.REPLICA) {
        replicas.add(
            Nodes.startReplica(
                topology,
                settings(options, node.id(), lockedDataDir(options, node.id(), false)),
                maxRecordBytes,
                registry,
                banner));
      }
    }
    controller = new ClusterController(topology, store, ClusterController.DEFAULT_APPLY_TIMEOUT);
    for (SequencerNode sequencer : sequencers) {
      controller.addLocalNode(sequencer.nodeId(), sequencer::updateTopology);
    }
    for (ReplicaNode replica : replicas) {
      controller.addLocalNode(replica.nodeId(), replica::updateTopology);
    }
    admin = AdminServer.start(HOST, options.adminPort(), controller);
    // Every node relays the admin requests clients send it on the data plane to the service.
    relay =
        new AdminFrameRelay(
            List.of(new AdminFrameRelay.Target(ROOT_NODE, new HostPort(HOST, admin.port()))),
            maxRecordBytes,
            AdminFrameRelay.DEFAULT_TIMEOUT);
    sequencers.forEach(s -> s.adminRelay(relay));
    replicas.forEach(r -> r.adminRelay(relay));
    awaitConnected(Duration.ofSeconds(10));
  }

  private static Path dataDir(Options options, int nodeId, boolean sequencer) {
    return options.dataDir().resolve((sequencer ? "sequencer-" : "replica-") + nodeId);
  }

  private Path lockedDataDir(Options options, int nodeId, boolean sequencer) throws IOException {
    Path dir = dataDir(options, nodeId, sequencer);
    nodeLocks.add(
        DataDirectoryLock.acquire(
            dir, "flexlog dev cluster, " + (sequencer ? "sequencer" : "replica") + " " + nodeId));
    return dir;
  }

  // A data directory written by the other layout would fail later with a less helpful message.
  private static void requireSameLayout(MetadataStore store, Topology configured, Options options)
      throws IOException {
    Optional<Topology> stored = store.load();
    if (stored.isEmpty()) {
      return;
    }
    Map<Integer, NodeAddress.Kind> want = kinds(configured);
    Map<Integer, NodeAddress.Kind> have = kinds(stored.get());
    if (!want.equals(have)) {
      throw new IllegalArgumentException(
          "data directory "
              + options.dataDir().toAbsolutePath()
              + " holds a dev cluster with nodes "
              + have
              + ", but the "
              + options.layout().name().toLowerCase(java.util.Locale.ROOT)
              + " layout has nodes "
              + want
              + "; use another --data directory");
    }
  }

  private static Map<Integer, NodeAddress.Kind> kinds(Topology topology) {
    Map<Integer, NodeAddress.Kind> kinds = new TreeMap<>();
    topology.nodes().values().forEach(n -> kinds.put(n.id(), n.kind()));
    return kinds;
  }

  private static NodeSettings settings(Options options, int nodeId, Path dir) {
    AtomicConfig defaults = AtomicConfig.defaults();
    return new NodeSettings(
        nodeId,
        dir,
        options.engine(),
        options.durability(),
        options.pmBytes(),
        ClusterFile.defaultChunk(options.pmBytes()),
        ReplicaLimits.DEFAULT_READ_HOLD,
        0,
        options.cacheBytes(),
        TieredStorageConfig.DEFAULT_PM_HIGH_WATERMARK,
        null,
        TieredStorageConfig.DEFAULT_SEGMENT_BYTES,
        new AtomicConfig(
            defaults.resultRetention(),
            defaults.resultRetentionCount(),
            options.atomicAbandonAfter(),
            defaults.forwardRetry(),
            defaults.forwardRetryMax()),
        null);
  }

  private void awaitConnected(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!replicas.stream().allMatch(ReplicaNode::isConnected)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("replicas did not connect to the sequencers in " + timeout);
      }
      Thread.sleep(10);
    }
  }

  public Layout layout() {
    return layout;
  }

  /** The current topology (it grows with AddColor). */
  public Topology topology() {
    return controller.topology();
  }

  public String bootstrap() {
    return HOST + ":" + sequencers.get(0).port();
  }

  /** The admin service's address, {@code host:port}. */
  public String adminAddress() {
    return admin.hostPort();
  }

  public ClusterController controller() {
    return controller;
  }

  public List<SequencerNode> sequencers() {
    return sequencers;
  }

  public List<ReplicaNode> replicas() {
    return replicas;
  }

  /** Stops one replica node, as a crash of its process would (for tests of failover). */
  public void stopReplica(int nodeId) {
    ReplicaNode replica =
        replicas.stream()
            .filter(r -> r.nodeId() == nodeId)
            .findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no running replica node " + nodeId));
    replicas.remove(replica);
    replica.close();
  }

  /** Stops every node and the admin service, then releases the data directory. */
  @Override
  public void close() {
    try {
      closeNodes();
    } finally {
      nodeLocks.forEach(DataDirectoryLock::close);
      lock.close();
    }
  }

  private void closeNodes() {
    if (relay != null) {
      relay.close();
    }
    if (admin != null) {
      admin.close();
    }
    for (ReplicaNode replica : replicas) {
      replica.close();
    }
    for (SequencerNode sequencer : sequencers) {
      sequencer.close();
    }
  }
}
