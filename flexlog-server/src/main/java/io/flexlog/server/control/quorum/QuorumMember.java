package io.flexlog.server.control.quorum;

import io.flexlog.core.error.MetadataUnavailableException;
import io.flexlog.core.model.Topology;
import io.flexlog.server.control.AdminServer;
import io.flexlog.server.control.ClusterController;
import io.flexlog.server.control.MetadataLog;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a node of the metadata quorum runs besides its sequencer or replica: its Ratis peer ({@link
 * MetadataQuorum}), a {@link ClusterController} fed by every committed topology (it updates the
 * node in this process and, on the leader, the watching nodes), and the admin service. A background
 * thread seeds the quorum with this node's topology if it is empty and records changed node
 * addresses as a new version (docs/architecture.md, "Metadata quorum").
 *
 * <p>Threading: the controller is thread-safe; the seeding thread stops at {@link #close}.
 */
public final class QuorumMember implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(QuorumMember.class);
  static final String STORAGE_DIR = "metadata-quorum";
  private static final long SEED_RETRY_MS = 200;

  private final MetadataQuorum quorum;
  private final ClusterController controller;
  private final AdminServer admin;
  private final Thread seeder;
  private volatile RoleLeaseKeeper roles;
  private ScheduledExecutorService heartbeats;

  private QuorumMember(
      MetadataQuorum quorum, ClusterController controller, AdminServer admin, Thread seeder) {
    this.quorum = quorum;
    this.controller = controller;
    this.admin = admin;
    this.seeder = seeder;
  }

  /**
   * Starts keeping this sequencer node's role leases (docs/architecture.md, "Sequencer failover"):
   * a {@code flexlog-role-leases-N} thread runs the {@link RoleLeaseKeeper} every heartbeat. The
   * backups are the sequencer nodes of the quorum.
   *
   * @param nodeEpoch this incarnation's node epoch (every role it takes gets at least this epoch)
   * @return the keeper, which the node's ordering asks before it issues SNs
   */
  public synchronized RoleLeaseKeeper keepRoleLeases(
      int nodeEpoch, List<Integer> backups, RoleLeaseKeeper.Timing timing) {
    if (roles != null) {
      throw new IllegalStateException("role leases are already kept");
    }
    int selfId = quorum.selfId();
    RoleLeaseKeeper keeper =
        new RoleLeaseKeeper(
            selfId,
            nodeEpoch,
            backups,
            RoleLeaseKeeper.Quorum.of(quorum),
            System::nanoTime,
            timing);
    heartbeats =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "flexlog-role-leases-" + selfId);
              t.setDaemon(true);
              return t;
            });
    heartbeats.scheduleWithFixedDelay(
        () -> {
          try {
            keeper.tick();
          } catch (RuntimeException e) {
            LOG.error("node {}: role lease heartbeat failed", selfId, e);
          }
        },
        0,
        timing.heartbeat().toNanos(),
        TimeUnit.NANOSECONDS);
    roles = keeper;
    return keeper;
  }

  /** The role lease keeper, once {@link #keepRoleLeases} started it. */
  public Optional<RoleLeaseKeeper> roles() {
    return Optional.ofNullable(roles);
  }

  /**
   * Starts the peer, the controller and the admin service of node {@code selfId}.
   *
   * @param topology the topology the node started with (its cluster file or cached metadata)
   * @param localNode the node in this process, updated with every committed version
   * @throws IOException when a port cannot be bound or the quorum's storage is unusable
   */
  public static QuorumMember start(
      QuorumConfig config,
      int selfId,
      Path dataDir,
      Topology topology,
      ClusterController.TopologyListener localNode,
      Duration applyTimeout)
      throws IOException {
    AtomicReference<MetadataQuorum> log = new AtomicReference<>();
    ClusterController controller = new ClusterController(topology, new Deferred(log), applyTimeout);
    controller.addLocalNode(selfId, localNode);
    MetadataQuorum quorum =
        MetadataQuorum.start(config, selfId, dataDir.resolve(STORAGE_DIR), controller::onCommitted);
    log.set(quorum);
    QuorumConfig.Peer self = config.peer(selfId).orElseThrow();
    AdminServer admin;
    try {
      admin =
          AdminServer.start(
              self.host(),
              self.adminPort(),
              controller,
              quorum,
              config.requestTimeout().plus(applyTimeout));
    } catch (IOException | RuntimeException e) {
      quorum.close();
      throw e;
    }
    Thread seeder = new Thread(() -> seed(quorum, topology), "flexlog-metadata-seed-" + selfId);
    seeder.setDaemon(true);
    seeder.start();
    return new QuorumMember(quorum, controller, admin, seeder);
  }

  // Until it succeeds: bootstrap the quorum, then make this node's configured addresses current.
  private static void seed(MetadataQuorum quorum, Topology configured) {
    while (!Thread.currentThread().isInterrupted()) {
      try {
        Topology committed = quorum.bootstrap(configured);
        if (committed.nodes().equals(configured.nodes())) {
          return;
        }
        Topology next =
            new Topology(
                committed.version() + 1,
                List.copyOf(configured.nodes().values()),
                committed.colors(),
                committed.shards());
        if (quorum.commit(committed, next).applied()) {
          LOG.info("node addresses changed: topology version {} committed", next.version());
          return;
        }
      } catch (MetadataUnavailableException e) {
        LOG.debug("metadata quorum not ready yet: {}", e.getMessage());
      } catch (IllegalArgumentException e) {
        LOG.error("the configured nodes do not fit the committed metadata: {}", e.getMessage());
        return;
      }
      try {
        Thread.sleep(SEED_RETRY_MS);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  public ClusterController controller() {
    return controller;
  }

  public MetadataQuorum quorum() {
    return quorum;
  }

  /** This node's admin service address, {@code host:port}. */
  public String adminAddress() {
    return admin.hostPort();
  }

  @Override
  public void close() {
    synchronized (this) {
      if (heartbeats != null) {
        heartbeats.shutdownNow();
      }
    }
    seeder.interrupt();
    admin.close();
    quorum.close();
  }

  /** The quorum as the controller's log, set once the peer has started. */
  private record Deferred(AtomicReference<MetadataQuorum> quorum) implements MetadataLog {
    @Override
    public Commit commit(Topology expected, Topology next) {
      return quorum.get().commit(expected, next);
    }

    @Override
    public Topology read(Topology cached) {
      return quorum.get().read(cached);
    }
  }
}
