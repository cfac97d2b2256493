package io.flexlog.server.control;

import io.flexlog.admin.v1.AddColorRequest;
import io.flexlog.admin.v1.AddColorResponse;
import io.flexlog.admin.v1.AlterColorRequest;
import io.flexlog.admin.v1.AlterColorResponse;
import io.flexlog.admin.v1.FlexLogAdminGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Forwards admin calls that a follower of the metadata quorum received to the leader's admin
 * service, one channel per leader address. Errors come back as the leader's gRPC status, trailers
 * (and so the FlexLog error code) included.
 *
 * <p>Threading: thread-safe.
 */
final class AdminForwarder implements AutoCloseable {
  private final Map<HostPort, ManagedChannel> channels = new ConcurrentHashMap<>();
  private final Duration timeout;

  AdminForwarder(Duration timeout) {
    this.timeout = timeout;
  }

  /**
   * @throws io.grpc.StatusRuntimeException with the leader's status
   */
  AddColorResponse addColor(HostPort leader, AddColorRequest request) {
    return FlexLogAdminGrpc.newBlockingStub(channel(leader))
        .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .addColor(request);
  }

  /**
   * @throws io.grpc.StatusRuntimeException with the leader's status
   */
  AlterColorResponse alterColor(HostPort leader, AlterColorRequest request) {
    return FlexLogAdminGrpc.newBlockingStub(channel(leader))
        .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .alterColor(request);
  }

  private ManagedChannel channel(HostPort target) {
    return channels.computeIfAbsent(
        target, t -> NettyChannelBuilder.forAddress(t.host(), t.port()).usePlaintext().build());
  }

  @Override
  public void close() {
    channels.values().forEach(ManagedChannel::shutdownNow);
    channels.clear();
  }
}
