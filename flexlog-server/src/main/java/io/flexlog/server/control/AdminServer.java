package io.flexlog.server.control;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin gRPC endpoint of a node holding the cluster metadata (each metadata quorum node):
 * serves {@link AdminService} on a dedicated port (plaintext; bind it to a trusted interface such
 * as 127.0.0.1). Every {@value #STREAM_CHECK_MS} ms a thread ends the topology streams of a node
 * that no longer leads the metadata quorum ({@link AdminService#endStreamsUnlessLeading}); every
 * {@value #HEARTBEAT_MS} ms another one sends the streams of the leader their heartbeat ({@link
 * AdminService#heartbeatStreams}).
 */
public final class AdminServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AdminServer.class);

  /** How often a node checks that it still leads the streams it serves. */
  static final long STREAM_CHECK_MS = 200;

  /**
   * How often the leader repeats each topology stream's latest version; a watcher that hears
   * nothing for {@link TopologyWatcher#SILENT_STREAM_MS} watches another admin service.
   */
  static final long HEARTBEAT_MS = 500;

  private final Server server;
  private final String host;
  private final AdminForwarder forwarder;
  private final ScheduledExecutorService streamCheck;

  private AdminServer(
      Server server, String host, AdminForwarder forwarder, ScheduledExecutorService streamCheck) {
    this.server = server;
    this.host = host;
    this.forwarder = forwarder;
    this.streamCheck = streamCheck;
  }

  /**
   * Binds {@code host:port} (port 0 picks a free one) and starts serving.
   *
   * @throws IOException naming the address when it cannot be bound
   */
  public static AdminServer start(String host, int port, ClusterController controller)
      throws IOException {
    return start(host, port, controller, AdminRoute.SELF, ClusterController.DEFAULT_APPLY_TIMEOUT);
  }

  /**
   * As {@link #start(String, int, ClusterController)} on a node of a metadata quorum: calls that
   * {@code route} sends to the leader are forwarded with {@code forwardTimeout}.
   */
  public static AdminServer start(
      String host,
      int port,
      ClusterController controller,
      AdminRoute route,
      Duration forwardTimeout)
      throws IOException {
    AdminForwarder forwarder = new AdminForwarder(forwardTimeout);
    AdminService service = new AdminService(controller, route, forwarder);
    Server server =
        NettyServerBuilder.forAddress(new InetSocketAddress(host, port))
            .addService(service)
            .build();
    try {
      server.start();
    } catch (IOException e) {
      forwarder.close();
      throw new IOException(
          "cannot bind the admin service to " + host + ":" + port + ": " + e.getMessage(), e);
    }
    LOG.info("admin service listening on {}:{}", host, server.getPort());
    // Two threads: a heartbeat never waits behind an end of the streams, which waits for a
    // topology being published.
    ScheduledExecutorService streamCheck =
        Executors.newScheduledThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "flexlog-admin-streams-" + port);
              t.setDaemon(true);
              return t;
            });
    streamCheck.scheduleWithFixedDelay(
        () -> {
          try {
            service.endStreamsUnlessLeading();
          } catch (RuntimeException e) {
            LOG.warn("checking the topology streams failed", e);
          }
        },
        STREAM_CHECK_MS,
        STREAM_CHECK_MS,
        TimeUnit.MILLISECONDS);
    streamCheck.scheduleWithFixedDelay(
        () -> {
          try {
            service.heartbeatStreams();
          } catch (RuntimeException e) {
            LOG.warn("sending the topology streams their heartbeat failed", e);
          }
        },
        HEARTBEAT_MS,
        HEARTBEAT_MS,
        TimeUnit.MILLISECONDS);
    return new AdminServer(server, host, forwarder, streamCheck);
  }

  public int port() {
    return server.getPort();
  }

  public String hostPort() {
    return host + ":" + port();
  }

  /** Stops serving; open WatchTopology streams are cancelled (their nodes reconnect later). */
  @Override
  public void close() {
    streamCheck.shutdownNow();
    server.shutdownNow();
    forwarder.close();
    try {
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
