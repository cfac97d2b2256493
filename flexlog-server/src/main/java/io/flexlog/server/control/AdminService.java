package io.flexlog.server.control;

import io.flexlog.admin.v1.AckTopologyRequest;
import io.flexlog.admin.v1.AckTopologyResponse;
import io.flexlog.admin.v1.AddColorRequest;
import io.flexlog.admin.v1.AddColorResponse;
import io.flexlog.admin.v1.FlexLogAdminGrpc;
import io.flexlog.admin.v1.GetTopologyRequest;
import io.flexlog.admin.v1.ListColorsRequest;
import io.flexlog.admin.v1.ListColorsResponse;
import io.flexlog.admin.v1.WatchTopologyRequest;
import io.flexlog.core.admin.AdminErrors;
import io.flexlog.core.admin.TopologyProtos;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Topology;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gRPC face of the {@link ClusterController} ({@code flexlog.admin.v1.FlexLogAdmin}): converts
 * messages and maps errors to a gRPC status carrying the FlexLog error code ({@link AdminErrors}).
 *
 * <p>Threading: gRPC calls the methods on its executor threads, concurrently; the controller is
 * thread-safe and serializes changes.
 */
public final class AdminService extends FlexLogAdminGrpc.FlexLogAdminImplBase {
  private static final Logger LOG = LoggerFactory.getLogger(AdminService.class);

  private final ClusterController controller;

  public AdminService(ClusterController controller) {
    this.controller = controller;
  }

  @Override
  public void addColor(AddColorRequest request, StreamObserver<AddColorResponse> response) {
    AddColorResult result;
    try {
      result =
          controller.addColor(
              new ColorSpec(
                  request.getName(),
                  request.getParent(),
                  request.getShards(),
                  request.getReplicationFactor(),
                  request.hasSequencerNodeId() ? request.getSequencerNodeId() : null));
    } catch (FlexLogException e) {
      response.onError(AdminErrors.toStatus(e));
      return;
    } catch (IOException e) {
      LOG.error("AddColor '{}' failed: cannot persist the cluster metadata", request.getName(), e);
      response.onError(
          AdminErrors.toStatus(
              new FlexLogException("cannot persist the cluster metadata: " + e.getMessage())));
      return;
    }
    response.onNext(
        AddColorResponse.newBuilder()
            .setColor(TopologyProtos.colorInfo(result.topology(), result.color()))
            .setCreated(result.created())
            .setTopologyVersion(result.topology().version())
            .addAllUnacknowledgedNodeIds(result.unacknowledgedNodeIds())
            .build());
    response.onCompleted();
  }

  @Override
  public void listColors(ListColorsRequest request, StreamObserver<ListColorsResponse> response) {
    Topology topology = controller.topology();
    ListColorsResponse.Builder b =
        ListColorsResponse.newBuilder().setTopologyVersion(topology.version());
    for (Color color : topology.colors()) {
      b.addColors(TopologyProtos.colorInfo(topology, color));
    }
    response.onNext(b.build());
    response.onCompleted();
  }

  @Override
  public void getTopology(
      GetTopologyRequest request, StreamObserver<io.flexlog.admin.v1.Topology> response) {
    response.onNext(TopologyProtos.toProto(controller.topology()));
    response.onCompleted();
  }

  @Override
  public void watchTopology(
      WatchTopologyRequest request, StreamObserver<io.flexlog.admin.v1.Topology> response) {
    ServerCallStreamObserver<io.flexlog.admin.v1.Topology> stream =
        (ServerCallStreamObserver<io.flexlog.admin.v1.Topology>) response;
    // The controller serializes deliveries to one watch, as gRPC requires for onNext.
    ClusterController.Watch watch =
        controller.watch(
            request.getNodeId(),
            request.getKnownVersion(),
            topology -> stream.onNext(TopologyProtos.toProto(topology)));
    stream.setOnCancelHandler(watch::cancel);
    if (stream.isCancelled()) {
      watch.cancel();
    }
  }

  @Override
  public void ackTopology(
      AckTopologyRequest request, StreamObserver<AckTopologyResponse> response) {
    if (request.getVersion() <= 0) {
      response.onError(
          Status.INVALID_ARGUMENT
              .withDescription("version must be > 0, got " + request.getVersion())
              .asRuntimeException());
      return;
    }
    controller.acknowledge(request.getNodeId(), request.getVersion());
    response.onNext(AckTopologyResponse.getDefaultInstance());
    response.onCompleted();
  }
}
