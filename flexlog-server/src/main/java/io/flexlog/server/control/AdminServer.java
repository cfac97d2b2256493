package io.flexlog.server.control;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin gRPC endpoint of a node holding the cluster metadata (each metadata quorum node):
 * serves {@link AdminService} on a dedicated port (plaintext; bind it to a trusted interface such
 * as 127.0.0.1).
 */
public final class AdminServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AdminServer.class);

  private final Server server;
  private final String host;
  private final AdminForwarder forwarder;

  private AdminServer(Server server, String host, AdminForwarder forwarder) {
    this.server = server;
    this.host = host;
    this.forwarder = forwarder;
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
    Server server =
        NettyServerBuilder.forAddress(new InetSocketAddress(host, port))
            .addService(new AdminService(controller, route, forwarder))
            .build();
    try {
      server.start();
    } catch (IOException e) {
      forwarder.close();
      throw new IOException(
          "cannot bind the admin service to " + host + ":" + port + ": " + e.getMessage(), e);
    }
    LOG.info("admin service listening on {}:{}", host, server.getPort());
    return new AdminServer(server, host, forwarder);
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
    server.shutdownNow();
    forwarder.close();
    try {
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
