package io.flexlog.server.control;

import io.flexlog.core.error.ColorExistsException;
import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.core.error.MetadataUnavailableException;
import io.flexlog.core.error.UnknownColorException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Topology;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster metadata authority, run by every node of the metadata quorum (or the one node holding
 * the metadata): holds the current topology (committed through a {@link MetadataLog}), creates
 * colors (docs/architecture.md#addcolor-and-topology-distribution) and distributes every new
 * topology version to the nodes.
 *
 * <p>Distribution: nodes in this process register as {@linkplain #addLocalNode local nodes} and are
 * updated synchronously; nodes in other processes {@linkplain #watch watch} (the admin service's
 * WatchTopology stream) and {@linkplain #acknowledge acknowledge} each version they applied. A new
 * version goes to every sequencer node first, and to replica nodes only once the sequencer nodes
 * that are watching acknowledged it (or the apply timeout passed), so that a replica rarely speaks
 * of a shard its sequencer does not know yet. AddColor returns once every watching node
 * acknowledged, or at the apply timeout, reporting which nodes had not.
 *
 * <p>Threading: thread-safe. Changes are serialized by this object's monitor, which is held while a
 * version is made durable and handed to the nodes; acknowledgements and watch cancellation do not
 * take it.
 */
public final class ClusterController {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterController.class);
  public static final Duration DEFAULT_APPLY_TIMEOUT = Duration.ofSeconds(5);

  /** Applies a topology to a node in this process; see {@link #addLocalNode}. */
  @FunctionalInterface
  public interface TopologyListener {
    void apply(Topology topology) throws Exception;
  }

  /**
   * A registered watcher; {@link #cancel} it when its stream ends. Calls to its sink (deliveries,
   * heartbeats, the end of its stream) hold its lock, so they never overlap.
   */
  public final class Watch {
    private final int nodeId;
    private final Consumer<Topology> sink;
    private volatile boolean cancelled;

    /** The latest version this watch was given or already had: what a heartbeat repeats. */
    private Topology latest;

    private Watch(int nodeId, Consumer<Topology> sink, Topology known) {
      this.nodeId = nodeId;
      this.sink = sink;
      this.latest = known;
    }

    public void cancel() {
      cancelled = true;
      watches.remove(this);
    }

    private synchronized void deliver(Topology topology) {
      latest = topology;
      send(topology);
    }

    /**
     * Sends the latest version this watch was given again, so that a watcher whose stream went
     * silent (its admin service cut off by the network) can tell
     * (docs/architecture.md#metadata-quorum, "Topology streams"). Never a version still being
     * published to the sequencers first.
     */
    private synchronized void heartbeat() {
      send(latest);
    }

    private synchronized void end(Consumer<Watch> end) {
      cancel();
      end.accept(this);
    }

    private void send(Topology topology) {
      if (cancelled) {
        return;
      }
      try {
        sink.accept(topology);
      } catch (RuntimeException e) {
        LOG.debug("watch of node {} failed, dropping it: {}", nodeId, e.toString());
        cancel();
      }
    }
  }

  private record LocalNode(int nodeId, TopologyListener listener) {}

  /** Conflicting commits in a row after which AddColor gives up (other nodes keep winning). */
  private static final int MAX_COMMIT_ATTEMPTS = 8;

  private final MetadataLog log;
  private final Duration applyTimeout;
  private final List<LocalNode> localNodes = new CopyOnWriteArrayList<>();
  private final List<Watch> watches = new CopyOnWriteArrayList<>();
  private final Acks acks = new Acks();
  private volatile Topology topology;

  /**
   * @param current the topology {@code store} holds (see {@link TopologyBootstrap})
   */
  public ClusterController(Topology current, MetadataStore store, Duration applyTimeout) {
    this(current, MetadataLog.local(Objects.requireNonNull(store, "store")), applyTimeout);
  }

  /**
   * @param current the topology this node runs with; newer committed versions arrive through {@link
   *     #onCommitted}
   */
  public ClusterController(Topology current, MetadataLog log, Duration applyTimeout) {
    this.topology = Objects.requireNonNull(current, "current");
    this.log = Objects.requireNonNull(log, "log");
    this.applyTimeout = Objects.requireNonNull(applyTimeout, "applyTimeout");
  }

  /** The latest committed topology this controller knows (and has distributed). */
  public Topology topology() {
    return topology;
  }

  /**
   * The committed topology as the metadata log reads it: never older than a version committed
   * before the call.
   *
   * @throws io.flexlog.core.error.MetadataUnavailableException when the quorum cannot answer
   */
  public Topology readTopology() {
    return log.read(topology);
  }

  /**
   * Takes a version that the metadata log committed (on this node or another) and distributes it
   * like one created here; older or known versions are ignored. Called in commit order.
   */
  public synchronized void onCommitted(Topology committed) {
    if (committed.version() <= topology.version()) {
      return;
    }
    topology = committed;
    LOG.info("topology version {} committed", committed.version());
    publish(committed, System.nanoTime() + applyTimeout.toNanos());
  }

  /**
   * Registers a node of this process: it is updated synchronously with every new version (sequencer
   * nodes before replica nodes) and counts as having acknowledged it.
   */
  public synchronized void addLocalNode(int nodeId, TopologyListener listener) {
    topology.node(nodeId);
    localNodes.add(new LocalNode(nodeId, listener));
    acks.ack(nodeId, topology.version());
  }

  /**
   * Starts delivering topologies to {@code sink}: the current one at once if it is newer than
   * {@code knownVersion}, then every later version in order. Calls to {@code sink} for one watch
   * never overlap; a sink that throws is dropped.
   *
   * @param nodeId the watching node, or -1 for an observer that is not a node
   */
  public synchronized Watch watch(int nodeId, long knownVersion, Consumer<Topology> sink) {
    Watch watch = new Watch(nodeId, sink, topology);
    watches.add(watch);
    if (topology.version() > knownVersion) {
      watch.deliver(topology);
    }
    return watch;
  }

  /**
   * Sends every watch the latest version it was given once more: the heartbeat of the topology
   * streams (a watcher ignores versions it has). Does not wait for a publication in progress, and
   * never sends a version before the sequencers were given it.
   */
  public void heartbeatWatches() {
    for (Watch watch : watches) {
      watch.heartbeat();
    }
  }

  /**
   * Ends every watch: cancels it and hands it to {@code end}, which closes its stream. Holds the
   * locks that deliveries and heartbeats hold, so {@code end} never overlaps either on one watch.
   *
   * @return how many watches ended
   */
  public synchronized int endWatches(Consumer<Watch> end) {
    int ended = 0;
    for (Watch watch : watches) {
      watch.end(end);
      ended++;
    }
    return ended;
  }

  /** The number of open watches of a node; for tests and status output. */
  public int watchCount(int nodeId) {
    return (int) watches.stream().filter(w -> w.nodeId == nodeId).count();
  }

  /** Records that {@code nodeId} has applied topology {@code version}. */
  public void acknowledge(int nodeId, long version) {
    acks.ack(nodeId, version);
  }

  /**
   * The quorum was started but its first topology is not committed yet (the node bootstraps it as
   * it starts): waits a little before the caller tries again, or fails once the apply timeout has
   * passed.
   */
  private static void awaitBootstrap(String verb, String colorName, long deadlineNs) {
    if (System.nanoTime() - deadlineNs > 0) {
      throw new MetadataUnavailableException(
          "cannot "
              + verb
              + " color '"
              + colorName
              + "' yet: the metadata quorum holds no topology (it is being bootstrapped); retry");
    }
    try {
      Thread.sleep(50);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MetadataUnavailableException("interrupted while waiting for the metadata quorum");
    }
  }

  /**
   * Creates a color, or returns the existing one when a color of that name has the same settings.
   * Returns once the new topology is durable and applied by every node that is watching, or when
   * the apply timeout passed (see {@link AddColorResult#unacknowledgedNodeIds()}).
   *
   * @throws InvalidArgumentException for a bad name, counts out of range or an unknown sequencer
   * @throws UnknownColorException when the parent does not exist
   * @throws ColorExistsException when the name exists with other settings
   * @throws io.flexlog.core.error.NotEnoughNodesException with fewer replica nodes than replicas
   * @throws IOException when the new topology cannot be made durable (nothing changed then)
   * @throws MetadataUnavailableException when the metadata quorum cannot commit it now
   */
  public AddColorResult addColor(ColorSpec request) throws IOException {
    ColorSpec spec = request.validated();
    long deadlineNs = System.nanoTime() + applyTimeout.toNanos();
    Color color;
    boolean created;
    Topology current;
    synchronized (this) {
      for (int attempt = 1; ; attempt++) {
        current = topology;
        Color existing = current.color(spec.name()).orElse(null);
        if (existing != null) {
          ColorCreation.requireSameSettings(current, existing, spec);
          color = existing;
          created = false;
          break;
        }
        Topology next = ColorCreation.withColor(current, spec);
        MetadataLog.Commit commit = log.commit(current, next);
        if (!commit.applied()) {
          if (commit.committed() == null) {
            awaitBootstrap("create", spec.name(), deadlineNs);
            attempt--;
            continue;
          }
          // Another node committed first: take its version and place the color on it.
          onCommitted(commit.committed());
          if (attempt >= MAX_COMMIT_ATTEMPTS) {
            throw new MetadataUnavailableException(
                "cannot create color '"
                    + spec.name()
                    + "': the cluster metadata changed "
                    + attempt
                    + " times while it was being placed; retry");
          }
          continue;
        }
        current = next;
        color = current.color(spec.name()).orElseThrow();
        topology = current;
        created = true;
        LOG.info(
            "color '{}' created under '{}' on sequencer node {}: shards {}, topology version {}",
            color.name(),
            spec.parent(),
            color.sequencerId(),
            ColorCreation.describeShards(current, color),
            current.version());
        publish(current, deadlineNs);
        break;
      }
    }
    awaitAcks(watchingNodes(null), current.version(), deadlineNs);
    return new AddColorResult(color, created, current, unacknowledged(current));
  }

  /**
   * Changes a color's retention (docs/architecture.md#retention) as a new topology version,
   * distributed like AddColor's. Returns once every watching node applied it or the apply timeout
   * passed; the same values again change nothing.
   *
   * @throws InvalidArgumentException for nothing to change or a value neither -1 nor > 0
   * @throws UnknownColorException when the color does not exist
   * @throws IOException when the new topology cannot be made durable (nothing changed then)
   * @throws MetadataUnavailableException when the metadata quorum cannot commit it now
   */
  public AlterColorResult alterColor(ColorAlteration request) throws IOException {
    ColorAlteration change = request.validated();
    long deadlineNs = System.nanoTime() + applyTimeout.toNanos();
    Color color;
    Topology current;
    synchronized (this) {
      for (int attempt = 1; ; attempt++) {
        current = topology;
        Color existing = change.find(current);
        color = change.applyTo(existing);
        if (color.equals(existing)) {
          return new AlterColorResult(color, false, current, unacknowledged(current));
        }
        Topology next = ColorAlteration.replace(current, color);
        MetadataLog.Commit commit = log.commit(current, next);
        if (commit.applied()) {
          topology = next;
          current = next;
          LOG.info(
              "color '{}' altered: {}, topology version {}",
              color.name(),
              color.retention(),
              next.version());
          publish(next, deadlineNs);
          break;
        }
        if (commit.committed() == null) {
          awaitBootstrap("alter", change.name(), deadlineNs);
          attempt--;
          continue;
        }
        onCommitted(commit.committed());
        if (attempt >= MAX_COMMIT_ATTEMPTS) {
          throw new MetadataUnavailableException(
              "cannot alter color '"
                  + change.name()
                  + "': the cluster metadata changed "
                  + attempt
                  + " times meanwhile; retry");
        }
      }
    }
    awaitAcks(watchingNodes(null), current.version(), deadlineNs);
    return new AlterColorResult(color, true, current, unacknowledged(current));
  }

  // Every sequencer node gets the version before any replica node does.
  private void publish(Topology next, long deadlineNs) {
    applyLocal(next, NodeAddress.Kind.SEQUENCER);
    deliver(next, NodeAddress.Kind.SEQUENCER);
    awaitAcks(watchingNodes(NodeAddress.Kind.SEQUENCER), next.version(), deadlineNs);
    applyLocal(next, NodeAddress.Kind.REPLICA);
    deliver(next, NodeAddress.Kind.REPLICA);
  }

  private void applyLocal(Topology next, NodeAddress.Kind kind) {
    for (LocalNode node : localNodes) {
      if (next.node(node.nodeId()).kind() != kind) {
        continue;
      }
      try {
        node.listener().apply(next);
        acks.ack(node.nodeId(), next.version());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        LOG.warn("interrupted while node {} applied topology {}", node.nodeId(), next.version());
      } catch (Exception e) {
        LOG.error("node {} failed to apply topology {}", node.nodeId(), next.version(), e);
      }
    }
  }

  // Replica nodes and observers that are not nodes get REPLICA deliveries.
  private void deliver(Topology next, NodeAddress.Kind kind) {
    for (Watch watch : watches) {
      NodeAddress node = next.nodes().get(watch.nodeId);
      NodeAddress.Kind watchKind = node == null ? NodeAddress.Kind.REPLICA : node.kind();
      if (watchKind == kind) {
        watch.deliver(next);
      }
    }
  }

  /** Node ids of the current watches, of one kind or (null) of every kind. */
  private List<Integer> watchingNodes(NodeAddress.Kind kind) {
    Topology current = topology;
    List<Integer> ids = new ArrayList<>();
    for (Watch watch : watches) {
      NodeAddress node = current.nodes().get(watch.nodeId);
      if (node != null && (kind == null || node.kind() == kind) && !ids.contains(watch.nodeId)) {
        ids.add(watch.nodeId);
      }
    }
    return ids;
  }

  private void awaitAcks(List<Integer> nodeIds, long version, long deadlineNs) {
    try {
      acks.await(nodeIds, version, deadlineNs);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private List<Integer> unacknowledged(Topology current) {
    List<Integer> missing = new ArrayList<>();
    for (int nodeId : current.nodes().keySet()) {
      if (acks.acked(nodeId) < current.version()) {
        missing.add(nodeId);
      }
    }
    return missing.stream().sorted().toList();
  }

  /** The highest version each node acknowledged; waiters block on its monitor. */
  private static final class Acks {
    private final Map<Integer, Long> acked = new HashMap<>();

    synchronized void ack(int nodeId, long version) {
      acked.merge(nodeId, version, Math::max);
      notifyAll();
    }

    synchronized long acked(int nodeId) {
      return acked.getOrDefault(nodeId, 0L);
    }

    synchronized void await(List<Integer> nodeIds, long version, long deadlineNs)
        throws InterruptedException {
      while (true) {
        boolean all = true;
        for (int nodeId : nodeIds) {
          all &= acked.getOrDefault(nodeId, 0L) >= version;
        }
        long leftNs = deadlineNs - System.nanoTime();
        if (all || leftNs <= 0) {
          return;
        }
        wait(Math.max(1, leftNs / 1_000_000));
      }
    }
  }
}
