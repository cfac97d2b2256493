package io.flexlog.server.control;

import io.flexlog.admin.v1.AckTopologyRequest;
import io.flexlog.admin.v1.AckTopologyResponse;
import io.flexlog.admin.v1.AddColorRequest;
import io.flexlog.admin.v1.AddColorResponse;
import io.flexlog.admin.v1.AlterColorRequest;
import io.flexlog.admin.v1.AlterColorResponse;
import io.flexlog.admin.v1.FlexLogAdminGrpc;
import io.flexlog.admin.v1.GetTopologyRequest;
import io.flexlog.admin.v1.ListColorsRequest;
import io.flexlog.admin.v1.ListColorsResponse;
import io.flexlog.admin.v1.WatchTopologyRequest;
import io.flexlog.core.admin.AdminErrors;
import io.flexlog.core.admin.TopologyProtos;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.MetadataUnavailableException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Retention;
import io.flexlog.core.model.Topology;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gRPC face of the {@link ClusterController} ({@code flexlog.admin.v1.FlexLogAdmin}): converts
 * messages and maps errors to a gRPC status carrying the FlexLog error code ({@link AdminErrors}).
 * On a follower of the metadata quorum ({@link AdminRoute}) AddColor and AlterColor are forwarded
 * to the leader, WatchTopology is refused with the leader's address in the trailer {@code
 * flexlog-metadata-leader}, and reads are answered here through the quorum; a node that stops
 * leading ends the topology streams it served ({@link #endStreamsUnlessLeading}).
 *
 * <p>Threading: gRPC calls the methods on its executor threads, concurrently; the controller is
 * thread-safe and serializes changes.
 */
public final class AdminService extends FlexLogAdminGrpc.FlexLogAdminImplBase {
  private static final Logger LOG = LoggerFactory.getLogger(AdminService.class);

  /** Trailer of a WatchTopology refused by a follower: the leader's admin {@code host:port}. */
  public static final Metadata.Key<String> LEADER_KEY =
      Metadata.Key.of("flexlog-metadata-leader", Metadata.ASCII_STRING_MARSHALLER);

  private final ClusterController controller;
  private final AdminRoute route;
  private final AdminForwarder forwarder;

  /** The open WatchTopology streams, by their watch. */
  private final Map<ClusterController.Watch, ServerCallStreamObserver<io.flexlog.admin.v1.Topology>>
      streams = new ConcurrentHashMap<>();

  public AdminService(ClusterController controller) {
    this(controller, AdminRoute.SELF, null);
  }

  /**
   * @param forwarder sends AddColor on to the leader when {@code route} names one
   */
  AdminService(ClusterController controller, AdminRoute route, AdminForwarder forwarder) {
    this.controller = controller;
    this.route = route;
    this.forwarder = forwarder;
  }

  @Override
  public void addColor(AddColorRequest request, StreamObserver<AddColorResponse> response) {
    Optional<HostPort> leader;
    try {
      leader = route.leaderAdmin();
    } catch (FlexLogException e) {
      response.onError(AdminErrors.toStatus(e));
      return;
    }
    if (leader.isPresent()) {
      forward(leader.get(), request, response);
      return;
    }
    AddColorResult result;
    try {
      result =
          controller.addColor(
              new ColorSpec(
                  request.getName(),
                  request.getParent(),
                  request.getShards(),
                  request.getReplicationFactor(),
                  request.hasSequencerNodeId() ? request.getSequencerNodeId() : null,
                  request.hasRetentionMs() || request.hasRetentionBytes()
                      ? ColorAlteration.retentionOf(
                          request.getName(),
                          Retention.KEEP_ALL,
                          request.hasRetentionMs() ? request.getRetentionMs() : null,
                          request.hasRetentionBytes() ? request.getRetentionBytes() : null)
                      : null));
    } catch (FlexLogException e) {
      response.onError(AdminErrors.toStatus(e));
      return;
    } catch (IOException e) {
      failToPersist("AddColor", request.getName(), e, response);
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
  public void alterColor(AlterColorRequest request, StreamObserver<AlterColorResponse> response) {
    Optional<HostPort> leader;
    try {
      leader = route.leaderAdmin();
    } catch (FlexLogException e) {
      response.onError(AdminErrors.toStatus(e));
      return;
    }
    if (leader.isPresent()) {
      forward(leader.get(), () -> forwarder.alterColor(leader.get(), request), response);
      return;
    }
    AlterColorResult result;
    try {
      result =
          controller.alterColor(
              new ColorAlteration(
                  request.getName(),
                  request.hasRetentionMs() ? request.getRetentionMs() : null,
                  request.hasRetentionBytes() ? request.getRetentionBytes() : null));
    } catch (FlexLogException e) {
      response.onError(AdminErrors.toStatus(e));
      return;
    } catch (IOException e) {
      failToPersist("AlterColor", request.getName(), e, response);
      return;
    }
    response.onNext(
        AlterColorResponse.newBuilder()
            .setColor(TopologyProtos.colorInfo(result.topology(), result.color()))
            .setChanged(result.changed())
            .setTopologyVersion(result.topology().version())
            .addAllUnacknowledgedNodeIds(result.unacknowledgedNodeIds())
            .build());
    response.onCompleted();
  }

  // The controller could not write the cluster metadata file: logged here, a typed error answered.
  private static void failToPersist(
      String call, String colorName, IOException e, StreamObserver<?> response) {
    LOG.error("{} '{}' failed: cannot persist the cluster metadata", call, colorName, e);
    response.onError(
        AdminErrors.toStatus(
            new FlexLogException("cannot persist the cluster metadata: " + e.getMessage())));
  }

  private void forward(
      HostPort leader, AddColorRequest request, StreamObserver<AddColorResponse> response) {
    forward(leader, () -> forwarder.addColor(leader, request), response);
  }

  /** Sends a call on to the leader and passes its answer or its typed error back. */
  private static <T> void forward(HostPort leader, Supplier<T> call, StreamObserver<T> response) {
    try {
      response.onNext(call.get());
      response.onCompleted();
    } catch (StatusRuntimeException e) {
      if (e.getTrailers() == null || e.getTrailers().get(AdminErrors.CODE_KEY) == null) {
        // No answer from the leader we knew (it died, an election is under way): typed, retryable.
        response.onError(
            AdminErrors.toStatus(
                new MetadataUnavailableException(
                    "metadata unavailable: the metadata quorum leader at "
                        + leader
                        + " did not answer ("
                        + e.getStatus().getCode()
                        + "); retry")));
        return;
      }
      // The leader's status and trailers (its FlexLog error code) pass through unchanged.
      response.onError(e.getStatus().asRuntimeException(e.getTrailers()));
    }
  }

  @Override
  public void listColors(ListColorsRequest request, StreamObserver<ListColorsResponse> response) {
    Topology topology;
    try {
      topology = controller.readTopology();
    } catch (FlexLogException e) {
      response.onError(AdminErrors.toStatus(e));
      return;
    }
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
    Topology topology;
    try {
      topology = controller.readTopology();
    } catch (FlexLogException e) {
      response.onError(AdminErrors.toStatus(e));
      return;
    }
    response.onNext(TopologyProtos.toProto(topology));
    response.onCompleted();
  }

  @Override
  public void watchTopology(
      WatchTopologyRequest request, StreamObserver<io.flexlog.admin.v1.Topology> response) {
    ServerCallStreamObserver<io.flexlog.admin.v1.Topology> stream =
        (ServerCallStreamObserver<io.flexlog.admin.v1.Topology>) response;
    Optional<HostPort> leader;
    try {
      leader = route.leaderAdmin();
    } catch (FlexLogException e) {
      response.onError(AdminErrors.toStatus(e));
      return;
    }
    if (leader.isPresent()) {
      // Topology streams come from the leader, which sees every acknowledgement.
      Metadata trailers = new Metadata();
      trailers.put(LEADER_KEY, leader.get().toString());
      response.onError(
          Status.FAILED_PRECONDITION
              .withDescription("not the metadata leader; watch " + leader.get())
              .asRuntimeException(trailers));
      return;
    }
    // The controller serializes deliveries to one watch, as gRPC requires for onNext.
    ClusterController.Watch watch =
        controller.watch(
            request.getNodeId(),
            request.getKnownVersion(),
            topology -> stream.onNext(TopologyProtos.toProto(topology)));
    streams.put(watch, stream);
    stream.setOnCancelHandler(
        () -> {
          watch.cancel();
          streams.remove(watch);
        });
    if (stream.isCancelled()) {
      watch.cancel();
      streams.remove(watch);
    }
  }

  /**
   * Ends the topology streams this node serves once it no longer leads the metadata quorum (a
   * hand-off, an election, or cut off from the majority, which makes Ratis step its leader down). A
   * follower's copy of the metadata stops at what it has applied, and one cut off from the majority
   * applies nothing more, so its watchers would never learn of a failover; ended with UNAVAILABLE,
   * they subscribe again at the leader this node knows (trailer {@link #LEADER_KEY}), or else at
   * another admin service, which sends them to the leader (docs/architecture.md#metadata-quorum).
   * Called periodically by {@link AdminServer}.
   */
  void endStreamsUnlessLeading() {
    if (streams.isEmpty() || route.servesStreamsNow()) {
      return;
    }
    Optional<HostPort> leader = route.otherLeaderNow();
    int ended =
        controller.endWatches(
            watch -> {
              ServerCallStreamObserver<io.flexlog.admin.v1.Topology> stream = streams.remove(watch);
              if (stream != null && !stream.isCancelled()) {
                Metadata trailers = new Metadata();
                leader.ifPresent(l -> trailers.put(LEADER_KEY, l.toString()));
                stream.onError(
                    Status.UNAVAILABLE
                        .withDescription(
                            "this node no longer leads the metadata quorum; watch its leader"
                                + leader.map(l -> " at " + l).orElse(""))
                        .asRuntimeException(trailers));
              }
            });
    if (ended > 0) {
      LOG.info(
          "no longer the metadata quorum's leader: ended {} topology stream(s), whose nodes watch"
              + " the leader next",
          ended);
    }
  }

  /**
   * Sends every topology stream this node serves its latest version again while this node leads the
   * metadata quorum: the heartbeat by which a watcher tells a silent stream (its admin service cut
   * off by the network, which ends nothing it can see) from a quiet one
   * (docs/architecture.md#metadata-quorum). Called periodically by {@link AdminServer}.
   */
  void heartbeatStreams() {
    if (!streams.isEmpty() && route.servesStreamsNow()) {
      controller.heartbeatWatches();
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
