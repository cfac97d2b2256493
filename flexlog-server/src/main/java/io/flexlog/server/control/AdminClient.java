package io.flexlog.server.control;

import io.flexlog.admin.v1.AddColorRequest;
import io.flexlog.admin.v1.AddColorResponse;
import io.flexlog.admin.v1.AlterColorRequest;
import io.flexlog.admin.v1.AlterColorResponse;
import io.flexlog.admin.v1.FlexLogAdminGrpc;
import io.flexlog.admin.v1.GetTopologyRequest;
import io.flexlog.admin.v1.ListColorsRequest;
import io.flexlog.admin.v1.ListColorsResponse;
import io.flexlog.core.admin.AdminErrors;
import io.flexlog.core.admin.TopologyProtos;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.model.Topology;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A blocking client of the admin service, for the command line and tests. Errors come back as the
 * typed FlexLog exceptions of {@link AdminErrors#fromStatus}.
 *
 * <pre>{@code
 * try (AdminClient admin = AdminClient.connect("127.0.0.1:7090", Duration.ofSeconds(10))) {
 *   admin.addColor(AddColorRequest.newBuilder().setName("orders").setParent("global").build());
 * }
 * }</pre>
 */
public final class AdminClient implements AutoCloseable {
  private final String target;
  private final ManagedChannel channel;
  private final FlexLogAdminGrpc.FlexLogAdminBlockingStub stub;
  private final Duration timeout;

  private AdminClient(String target, ManagedChannel channel, Duration timeout) {
    this.target = target;
    this.channel = channel;
    this.stub = FlexLogAdminGrpc.newBlockingStub(channel);
    this.timeout = timeout;
  }

  /**
   * @param hostPort the admin address, {@code host:port}
   * @param timeout the deadline of each call (AddColor also waits for the nodes to apply it)
   * @throws IllegalArgumentException when {@code hostPort} is not {@code host:port}
   */
  public static AdminClient connect(String hostPort, Duration timeout) {
    HostPort address = HostPort.parse("admin address", hostPort);
    ManagedChannel channel =
        NettyChannelBuilder.forAddress(address.host(), address.port()).usePlaintext().build();
    return new AdminClient(address.toString(), channel, timeout);
  }

  private FlexLogAdminGrpc.FlexLogAdminBlockingStub call() {
    return stub.withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * @throws FlexLogException typed by the service's error code
   */
  public AddColorResponse addColor(AddColorRequest request) {
    try {
      return call().addColor(request);
    } catch (StatusRuntimeException e) {
      throw AdminErrors.fromStatus(e, target);
    }
  }

  /**
   * @throws FlexLogException typed by the service's error code
   */
  public AlterColorResponse alterColor(AlterColorRequest request) {
    try {
      return call().alterColor(request);
    } catch (StatusRuntimeException e) {
      throw AdminErrors.fromStatus(e, target);
    }
  }

  public ListColorsResponse listColors() {
    try {
      return call().listColors(ListColorsRequest.getDefaultInstance());
    } catch (StatusRuntimeException e) {
      throw AdminErrors.fromStatus(e, target);
    }
  }

  public Topology topology() {
    try {
      return TopologyProtos.fromProto(call().getTopology(GetTopologyRequest.getDefaultInstance()));
    } catch (StatusRuntimeException e) {
      throw AdminErrors.fromStatus(e, target);
    }
  }

  @Override
  public void close() {
    channel.shutdownNow();
    try {
      channel.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
