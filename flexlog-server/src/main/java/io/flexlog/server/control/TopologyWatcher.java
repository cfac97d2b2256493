package io.flexlog.server.control;

import io.flexlog.admin.v1.AckTopologyRequest;
import io.flexlog.admin.v1.AckTopologyResponse;
import io.flexlog.admin.v1.FlexLogAdminGrpc;
import io.flexlog.admin.v1.WatchTopologyRequest;
import io.flexlog.core.admin.TopologyProtos;
import io.flexlog.core.model.Topology;
import io.flexlog.core.util.Backoff;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's subscription to the cluster's topology: watches the admin service of the metadata
 * quorum's leader (WatchTopology; a follower names the leader, an unreachable node is skipped),
 * applies every newer version through an {@link Applier} (which updates the node and its cached
 * copy) and acknowledges it, so that AddColor can wait for the node. When the stream breaks (the
 * root restarts, the network fails) it subscribes again after a backoff of {@value #MIN_BACKOFF_MS}
 * ms doubling to {@value #MAX_BACKOFF_MS} ms, asking only for versions newer than the one it
 * applied. The leader repeats each stream's latest version every {@link AdminServer#HEARTBEAT_MS}
 * ms; a stream silent for {@value #SILENT_STREAM_MS} ms is cancelled and the next admin service
 * watched, since a network that cuts the admin service off ends nothing this side can see
 * (docs/architecture.md#metadata-quorum, "Topology streams").
 *
 * <p>Threading: the applier runs on a gRPC executor thread, one version at a time, in version
 * order; {@link #close} may be called from any thread.
 */
public final class TopologyWatcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TopologyWatcher.class);
  static final long MIN_BACKOFF_MS = 50;
  static final long MAX_BACKOFF_MS = 1000;

  /** Four heartbeats missed: the stream, or the connection it waits for, is given up. */
  static final long SILENT_STREAM_MS = 4 * AdminServer.HEARTBEAT_MS;

  /**
   * Applies a newer topology to the node; a failure is logged (once per version) and the version
   * tried again when the leader repeats it, at the next heartbeat.
   */
  @FunctionalInterface
  public interface Applier {
    void apply(Topology topology) throws Exception;
  }

  private final List<HostPort> admins;
  private final int nodeId;
  private final Applier applier;
  private final Map<HostPort, ManagedChannel> channels = new HashMap<>();
  private HostPort admin;
  private FlexLogAdminGrpc.FlexLogAdminStub stub;
  private final ScheduledExecutorService scheduler;
  private final Backoff backoff = Backoff.doublingMs(MIN_BACKOFF_MS, MAX_BACKOFF_MS);
  private volatile long appliedVersion;
  private ClientCallStreamObserver<WatchTopologyRequest> call;
  private boolean streaming;
  private volatile long heardNs;
  private long failedVersion = -1;
  private boolean connectedOnce;
  private boolean lostLogged;
  private boolean closed;

  private TopologyWatcher(List<HostPort> admins, int nodeId, long knownVersion, Applier applier) {
    if (admins.isEmpty()) {
      throw new IllegalArgumentException("no admin address to watch the topology at");
    }
    this.admins = List.copyOf(admins);
    this.nodeId = nodeId;
    this.applier = applier;
    this.appliedVersion = knownVersion;
    use(admins.get(0));
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "flexlog-topology-watcher-" + nodeId);
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Starts watching; returns at once (the first subscription is asynchronous).
   *
   * @param knownVersion the version the node runs with; only newer ones are applied
   */
  public static TopologyWatcher start(
      HostPort admin, int nodeId, long knownVersion, Applier applier) {
    return start(List.of(admin), nodeId, knownVersion, applier);
  }

  /**
   * Watches the admin services of a metadata quorum: the first one, then wherever a follower points
   * (the leader), or the next one in turn when a service does not answer.
   */
  public static TopologyWatcher start(
      List<HostPort> admins, int nodeId, long knownVersion, Applier applier) {
    TopologyWatcher watcher = new TopologyWatcher(admins, nodeId, knownVersion, applier);
    watcher.subscribe();
    watcher.scheduler.scheduleWithFixedDelay(
        watcher::cancelIfSilent, SILENT_STREAM_MS / 4, SILENT_STREAM_MS / 4, TimeUnit.MILLISECONDS);
    return watcher;
  }

  private synchronized void use(HostPort target) {
    admin = target;
    ManagedChannel channel =
        channels.computeIfAbsent(
            target, t -> NettyChannelBuilder.forAddress(t.host(), t.port()).usePlaintext().build());
    stub = FlexLogAdminGrpc.newStub(channel);
  }

  /** The admin service watched now (or next); for tests. */
  public synchronized HostPort admin() {
    return admin;
  }

  /** The latest version applied through this watcher (or the one it started with). */
  public long appliedVersion() {
    return appliedVersion;
  }

  private synchronized void subscribe() {
    if (closed) {
      return;
    }
    streaming = true;
    heardNs = System.nanoTime();
    stub.watchTopology(
        WatchTopologyRequest.newBuilder().setNodeId(nodeId).setKnownVersion(appliedVersion).build(),
        new Observer());
  }

  private synchronized void resubscribeLater(Throwable cause) {
    streaming = false;
    if (closed) {
      return;
    }
    HostPort leader = leaderHint(cause);
    if (leader != null) {
      // A follower of the metadata quorum named its leader: go there at once.
      use(leader);
      scheduler.schedule(this::subscribe, MIN_BACKOFF_MS, TimeUnit.MILLISECONDS);
      return;
    }
    HostPort lost = admin;
    if (admins.size() > 1) {
      use(admins.get((admins.indexOf(admin) + 1) % admins.size()));
    }
    if (!lostLogged) {
      lostLogged = true;
      LOG.warn(
          "node {}: topology stream from admin {} {}; watching admin {} next",
          nodeId,
          lost,
          cause == null ? "ended" : "failed: " + cause.getMessage(),
          admin);
    }
    long delay = backoff.nextDelayMs();
    ManagedChannel channel = channels.get(admin);
    scheduler.schedule(
        () -> {
          channel.resetConnectBackoff();
          subscribe();
        },
        delay,
        TimeUnit.MILLISECONDS);
  }

  /**
   * Cancels the stream when nothing came for {@link #SILENT_STREAM_MS}: its admin service, or the
   * network to it, is gone without a word. The cancellation ends the stream like an error, and the
   * next admin service is watched.
   */
  private void cancelIfSilent() {
    ClientCallStreamObserver<WatchTopologyRequest> silent;
    synchronized (this) {
      if (closed
          || !streaming
          || call == null
          || System.nanoTime() - heardNs < TimeUnit.MILLISECONDS.toNanos(SILENT_STREAM_MS)) {
        return;
      }
      silent = call;
      streaming = false;
    }
    silent.cancel("no heartbeat for " + SILENT_STREAM_MS + " ms", null);
  }

  private static HostPort leaderHint(Throwable cause) {
    if (!(cause instanceof StatusRuntimeException e) || e.getTrailers() == null) {
      return null;
    }
    String leader = e.getTrailers().get(AdminService.LEADER_KEY);
    return leader == null ? null : HostPort.parse("metadata leader", leader);
  }

  private synchronized void onConnected() {
    backoff.reset();
    if (!connectedOnce || lostLogged) {
      LOG.info("node {} watching the topology at admin {}", nodeId, admin);
    }
    connectedOnce = true;
    lostLogged = false;
  }

  private void onTopology(io.flexlog.admin.v1.Topology message) {
    heardNs = System.nanoTime();
    onConnected();
    if (message.getVersion() <= appliedVersion) {
      return; // a heartbeat, or a version applied before
    }
    Topology topology;
    try {
      topology = TopologyProtos.fromProto(message);
    } catch (RuntimeException e) {
      if (firstFailure(message.getVersion())) {
        LOG.error(
            "node {}: admin {} sent an invalid topology version {}: {}",
            nodeId,
            admin,
            message.getVersion(),
            e.getMessage());
      }
      return;
    }
    if (topology.version() <= appliedVersion) {
      return;
    }
    try {
      applier.apply(topology);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    } catch (Exception e) {
      if (firstFailure(topology.version())) {
        LOG.error(
            "node {} failed to apply topology version {}; trying again at every heartbeat, logged"
                + " once",
            nodeId,
            topology.version(),
            e);
      }
      return;
    }
    appliedVersion = topology.version();
    LOG.info("node {} applied topology version {}", nodeId, topology.version());
    FlexLogAdminGrpc.FlexLogAdminStub ackStub;
    synchronized (this) {
      ackStub = stub;
    }
    ackStub.ackTopology(
        AckTopologyRequest.newBuilder().setNodeId(nodeId).setVersion(topology.version()).build(),
        new StreamObserver<AckTopologyResponse>() {
          @Override
          public void onNext(AckTopologyResponse value) {}

          @Override
          public void onError(Throwable t) {
            LOG.debug("node {}: acknowledging topology failed: {}", nodeId, t.toString());
          }

          @Override
          public void onCompleted() {}
        });
  }

  /** Whether this is the first failure with {@code version}: heartbeats repeat it every 500 ms. */
  private boolean firstFailure(long version) {
    if (version == failedVersion) {
      return false;
    }
    failedVersion = version;
    return true;
  }

  /** Stops watching. Idempotent. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      if (call != null) {
        call.cancel("node " + nodeId + " is stopping", null);
      }
    }
    scheduler.shutdownNow();
    List<ManagedChannel> open;
    synchronized (this) {
      open = List.copyOf(channels.values());
    }
    for (ManagedChannel channel : open) {
      channel.shutdownNow();
      try {
        channel.awaitTermination(2, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private final class Observer
      implements ClientResponseObserver<WatchTopologyRequest, io.flexlog.admin.v1.Topology> {
    @Override
    public void beforeStart(ClientCallStreamObserver<WatchTopologyRequest> requestStream) {
      synchronized (TopologyWatcher.this) {
        call = requestStream;
      }
    }

    @Override
    public void onNext(io.flexlog.admin.v1.Topology message) {
      onTopology(message);
    }

    @Override
    public void onError(Throwable t) {
      resubscribeLater(t);
    }

    @Override
    public void onCompleted() {
      resubscribeLater(null);
    }
  }
}
