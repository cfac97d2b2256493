package io.flexlog.server.control;

import io.flexlog.admin.v1.AckTopologyRequest;
import io.flexlog.admin.v1.AckTopologyResponse;
import io.flexlog.admin.v1.FlexLogAdminGrpc;
import io.flexlog.admin.v1.WatchTopologyRequest;
import io.flexlog.core.admin.TopologyProtos;
import io.flexlog.core.model.Topology;
import io.flexlog.core.util.Backoff;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's subscription to the cluster's topology: watches the admin service of the root node
 * (WatchTopology), applies every newer version through an {@link Applier} (which updates the node
 * and its cached copy) and acknowledges it, so that AddColor can wait for the node. When the stream
 * breaks (the root restarts, the network fails) it subscribes again after a backoff of {@value
 * #MIN_BACKOFF_MS} ms doubling to {@value #MAX_BACKOFF_MS} ms, asking only for versions newer than
 * the one it applied.
 *
 * <p>Threading: the applier runs on a gRPC executor thread, one version at a time, in version
 * order; {@link #close} may be called from any thread.
 */
public final class TopologyWatcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TopologyWatcher.class);
  static final long MIN_BACKOFF_MS = 50;
  static final long MAX_BACKOFF_MS = 1000;

  /** Applies a newer topology to the node; a failure is logged and the version retried later. */
  @FunctionalInterface
  public interface Applier {
    void apply(Topology topology) throws Exception;
  }

  private final HostPort admin;
  private final int nodeId;
  private final Applier applier;
  private final ManagedChannel channel;
  private final FlexLogAdminGrpc.FlexLogAdminStub stub;
  private final ScheduledExecutorService scheduler;
  private final Backoff backoff = Backoff.doublingMs(MIN_BACKOFF_MS, MAX_BACKOFF_MS);
  private volatile long appliedVersion;
  private ClientCallStreamObserver<WatchTopologyRequest> call;
  private boolean connectedOnce;
  private boolean lostLogged;
  private boolean closed;

  private TopologyWatcher(HostPort admin, int nodeId, long knownVersion, Applier applier) {
    this.admin = admin;
    this.nodeId = nodeId;
    this.applier = applier;
    this.appliedVersion = knownVersion;
    this.channel =
        NettyChannelBuilder.forAddress(admin.host(), admin.port()).usePlaintext().build();
    this.stub = FlexLogAdminGrpc.newStub(channel);
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
    TopologyWatcher watcher = new TopologyWatcher(admin, nodeId, knownVersion, applier);
    watcher.subscribe();
    return watcher;
  }

  /** The latest version applied through this watcher (or the one it started with). */
  public long appliedVersion() {
    return appliedVersion;
  }

  private synchronized void subscribe() {
    if (closed) {
      return;
    }
    stub.watchTopology(
        WatchTopologyRequest.newBuilder().setNodeId(nodeId).setKnownVersion(appliedVersion).build(),
        new Observer());
  }

  private synchronized void resubscribeLater(Throwable cause) {
    if (closed) {
      return;
    }
    if (!lostLogged) {
      lostLogged = true;
      LOG.warn(
          "node {}: topology stream from admin {} {}; retrying",
          nodeId,
          admin,
          cause == null ? "ended" : "failed: " + cause.getMessage());
    }
    long delay = backoff.nextDelayMs();
    scheduler.schedule(
        () -> {
          channel.resetConnectBackoff();
          subscribe();
        },
        delay,
        TimeUnit.MILLISECONDS);
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
    onConnected();
    Topology topology;
    try {
      topology = TopologyProtos.fromProto(message);
    } catch (RuntimeException e) {
      LOG.error("node {}: admin {} sent an invalid topology: {}", nodeId, admin, e.getMessage());
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
      LOG.error("node {} failed to apply topology version {}", nodeId, topology.version(), e);
      return;
    }
    appliedVersion = topology.version();
    LOG.info("node {} applied topology version {}", nodeId, topology.version());
    stub.ackTopology(
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
    channel.shutdownNow();
    try {
      channel.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
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
