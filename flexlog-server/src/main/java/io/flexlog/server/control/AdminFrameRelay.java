package io.flexlog.server.control;

import io.flexlog.admin.v1.AddColorRequest;
import io.flexlog.admin.v1.AddColorResponse;
import io.flexlog.admin.v1.AlterColorRequest;
import io.flexlog.admin.v1.AlterColorResponse;
import io.flexlog.admin.v1.ColorInfo;
import io.flexlog.admin.v1.ListColorsResponse;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.FlexLogTimeoutException;
import io.flexlog.core.error.MetadataUnavailableException;
import io.flexlog.core.error.NotReadyException;
import io.flexlog.core.error.UnknownColorException;
import io.flexlog.core.model.Retention;
import io.flexlog.core.protocol.AdminRelay;
import io.flexlog.core.protocol.AlterColorDescriptor;
import io.flexlog.core.protocol.ColorEntry;
import io.flexlog.core.protocol.CreateColorDescriptor;
import io.flexlog.core.protocol.DescribeClusterDescriptor;
import io.flexlog.core.protocol.DescribeColorsDescriptor;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Serves the admin requests a node receives on its data-plane port (CREATE_COLOR, ALTER_COLOR,
 * DESCRIBE_COLORS, DESCRIBE_CLUSTER) by calling the admin service over gRPC and encoding its answer
 * as the matching response frame, or its error as an ERROR frame with the same FlexLog code
 * (docs/architecture.md#admin-requests-on-the-data-plane). So a client needs no gRPC to administer
 * the cluster, and finds the admin service from any bootstrap address.
 *
 * <p>The admin services are tried in the given order (a quorum node lists its own first); one that
 * cannot be reached is skipped, and the one that answered is tried first next time. A typed error
 * (e.g. {@code COLOR_EXISTS}) is final. When none answers, or the one that did timed out, the
 * request fails with {@code METADATA_UNAVAILABLE} naming what was tried.
 *
 * <p>Threading: {@link #relay} runs on a node's event loop and only decodes the request; the gRPC
 * calls run on up to {@value #THREADS} daemon threads {@code flexlog-admin-relay-N}, with at most
 * {@value #QUEUED} requests waiting (more are refused with {@code NOT_READY}). Thread-safe.
 */
public final class AdminFrameRelay implements AdminRelay, AutoCloseable {
  /**
   * The deadline of a relayed gRPC call: AddColor may wait {@link
   * ClusterController#DEFAULT_APPLY_TIMEOUT} for the nodes and, on a follower, the quorum's request
   * timeout for the leader.
   */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(15);

  static final int THREADS = 4;
  static final int QUEUED = 256;

  /** An admin service of the cluster and the node that runs it. */
  public record Target(int nodeId, HostPort admin) {}

  private final List<Target> targets;
  private final int maxRecordBytes;
  private final Duration timeout;
  private final ThreadPoolExecutor executor;
  private final Map<HostPort, AdminClient> clients = new ConcurrentHashMap<>();
  private volatile int preferred;

  /**
   * @param targets the admin services, in the order to try them; at least one
   * @param maxRecordBytes the cluster's record limit, reported by DESCRIBE_CLUSTER
   * @param timeout the deadline of each gRPC call (AddColor waits for the nodes to apply it, up to
   *     the service's apply timeout)
   */
  public AdminFrameRelay(List<Target> targets, int maxRecordBytes, Duration timeout) {
    if (targets.isEmpty()) {
      throw new IllegalArgumentException("an admin relay needs at least one admin service");
    }
    this.targets = List.copyOf(targets);
    this.maxRecordBytes = maxRecordBytes;
    this.timeout = timeout;
    this.executor =
        new ThreadPoolExecutor(
            THREADS,
            THREADS,
            30,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(QUEUED),
            new DefaultThreadFactory("flexlog-admin-relay", true));
    executor.allowCoreThreadTimeOut(true);
  }

  @Override
  public CompletableFuture<ByteBuf> relay(ByteBuf request) {
    long requestId = FrameDescriptor.requestId(request);
    byte type = FrameDescriptor.type(request);
    Function<AdminClient, ByteBuf> call =
        switch (type) {
          case MessageType.CREATE_COLOR -> createColor(requestId, request);
          case MessageType.ALTER_COLOR -> alterColor(requestId, request);
          case MessageType.DESCRIBE_COLORS -> describeColors(requestId, request);
          case MessageType.DESCRIBE_CLUSTER -> describeCluster(requestId);
          default ->
              throw new IllegalArgumentException("not an admin request: " + MessageType.name(type));
        };
    try {
      return CompletableFuture.supplyAsync(() -> answer(requestId, call), executor);
    } catch (RejectedExecutionException e) {
      return CompletableFuture.completedFuture(
          error(
              requestId,
              new NotReadyException(
                  "too many admin requests in flight on this node ("
                      + (THREADS + QUEUED)
                      + "); retry")));
    }
  }

  private Function<AdminClient, ByteBuf> createColor(long requestId, ByteBuf frame) {
    CreateColorDescriptor.Request request = CreateColorDescriptor.decodeRequest(frame);
    AddColorRequest.Builder grpc =
        AddColorRequest.newBuilder()
            .setName(request.name())
            .setParent(request.parent())
            .setShards(request.shards())
            .setReplicationFactor(request.replicationFactor());
    if (request.sequencerNodeId() != CreateColorDescriptor.PARENTS_SEQUENCER) {
      grpc.setSequencerNodeId(request.sequencerNodeId());
    }
    // -1 is "not given", as on the command line
    // (docs/protocol.md#create_color-and-create_color_response)
    if (request.retentionMs() != Retention.KEEP) {
      grpc.setRetentionMs(request.retentionMs());
    }
    if (request.retentionBytes() != Retention.KEEP) {
      grpc.setRetentionBytes(request.retentionBytes());
    }
    AddColorRequest built = grpc.build();
    return client -> {
      AddColorResponse response = client.addColor(built);
      return CreateColorDescriptor.encodeResponse(
          ByteBufAllocator.DEFAULT,
          requestId,
          new CreateColorDescriptor.Response(
              response.getCreated(),
              response.getTopologyVersion(),
              response.getUnacknowledgedNodeIdsList(),
              entry(response.getColor())));
    };
  }

  private Function<AdminClient, ByteBuf> alterColor(long requestId, ByteBuf frame) {
    AlterColorDescriptor.Request request = AlterColorDescriptor.decodeRequest(frame);
    AlterColorRequest.Builder grpc = AlterColorRequest.newBuilder().setName(request.name());
    request.retentionMs().ifPresent(grpc::setRetentionMs);
    request.retentionBytes().ifPresent(grpc::setRetentionBytes);
    AlterColorRequest built = grpc.build();
    return client -> {
      AlterColorResponse response = client.alterColor(built);
      return AlterColorDescriptor.encodeResponse(
          ByteBufAllocator.DEFAULT,
          requestId,
          new AlterColorDescriptor.Response(
              response.getChanged(),
              response.getTopologyVersion(),
              response.getUnacknowledgedNodeIdsList(),
              entry(response.getColor())));
    };
  }

  private Function<AdminClient, ByteBuf> describeColors(long requestId, ByteBuf frame) {
    String name = DescribeColorsDescriptor.decodeRequest(frame);
    return client -> {
      ListColorsResponse response = client.listColors();
      List<ColorEntry> colors = new ArrayList<>();
      for (ColorInfo color : response.getColorsList()) {
        if (name.isEmpty() || name.equals(color.getName())) {
          colors.add(entry(color));
        }
      }
      if (colors.isEmpty() && !name.isEmpty()) {
        throw new UnknownColorException(
            "unknown color '"
                + name
                + "': topology version "
                + response.getTopologyVersion()
                + " has no color of that name");
      }
      return DescribeColorsDescriptor.encodeResponse(
          ByteBufAllocator.DEFAULT,
          requestId,
          new DescribeColorsDescriptor.Response(response.getTopologyVersion(), colors));
    };
  }

  private Function<AdminClient, ByteBuf> describeCluster(long requestId) {
    List<DescribeClusterDescriptor.AdminService> services =
        targets.stream()
            .map(
                t ->
                    new DescribeClusterDescriptor.AdminService(
                        t.nodeId(), t.admin().host(), t.admin().port()))
            .toList();
    return client ->
        DescribeClusterDescriptor.encodeResponse(
            ByteBufAllocator.DEFAULT,
            requestId,
            new DescribeClusterDescriptor.Response(client.topology(), maxRecordBytes, services));
  }

  private static ColorEntry entry(ColorInfo color) {
    return new ColorEntry(
        color.getId(),
        color.getName(),
        color.getParent(),
        color.getSequencerNodeId(),
        color.getReplicationFactor(),
        color.getShardIdsList(),
        color.hasRetentionMs() ? color.getRetentionMs() : Retention.KEEP,
        color.hasRetentionBytes() ? color.getRetentionBytes() : Retention.KEEP);
  }

  /** Calls the admin services in turn until one answers; its answer or error as a frame. */
  private ByteBuf answer(long requestId, Function<AdminClient, ByteBuf> call) {
    List<String> unreachable = new ArrayList<>();
    int first = preferred;
    for (int i = 0; i < targets.size(); i++) {
      int index = (first + i) % targets.size();
      HostPort admin = targets.get(index).admin();
      try {
        ByteBuf answer = call.apply(client(admin));
        preferred = index;
        return answer;
      } catch (FlexLogTimeoutException e) {
        return error(
            requestId,
            new MetadataUnavailableException(
                "metadata unavailable: the admin service at "
                    + admin
                    + " did not answer within "
                    + timeout.toMillis()
                    + " ms; a color being created or altered may still change (sending the"
                    + " request again is safe)"));
      } catch (FlexLogException e) {
        if (!isUnreachable(e)) {
          return error(requestId, e);
        }
        unreachable.add(admin + ": " + e.getMessage());
      } catch (RuntimeException e) {
        return error(requestId, new FlexLogException("admin service at " + admin + ": " + e, e));
      }
    }
    return error(
        requestId,
        new MetadataUnavailableException(
            "metadata unavailable: no admin service answered: " + unreachable));
  }

  /** The service could not be reached at all (no FlexLog code came back). */
  private static boolean isUnreachable(FlexLogException e) {
    return e.getCause() instanceof StatusRuntimeException s
        && s.getStatus().getCode() == Status.Code.UNAVAILABLE;
  }

  private static ByteBuf error(long requestId, FlexLogException e) {
    return ErrorDescriptor.encode(
        ByteBufAllocator.DEFAULT, requestId, e.code(), String.valueOf(e.getMessage()));
  }

  private AdminClient client(HostPort admin) {
    return clients.computeIfAbsent(admin, a -> AdminClient.connect(a.toString(), timeout));
  }

  /** Stops the relay threads and closes the channels to the admin services. */
  @Override
  public void close() {
    executor.shutdownNow();
    clients.values().forEach(AdminClient::close);
    clients.clear();
  }
}
