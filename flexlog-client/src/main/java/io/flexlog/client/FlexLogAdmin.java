package io.flexlog.client;

import io.flexlog.client.internals.AdminCalls;
import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.core.error.ProtocolException;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.ReplicaDescription;
import io.flexlog.core.model.Retention;
import io.flexlog.core.protocol.AlterColorDescriptor;
import io.flexlog.core.protocol.ColorEntry;
import io.flexlog.core.protocol.CreateColorDescriptor;
import io.flexlog.core.protocol.DescribeClusterDescriptor;
import io.flexlog.core.protocol.DescribeColorsDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.ReplicaStatusDescriptor;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Administers a FlexLog cluster from Java, like Kafka's {@code Admin}: create, alter, describe and
 * list colors, describe the cluster's nodes and shards. It needs only the bootstrap servers: every
 * node relays these requests to the cluster's admin service (docs/architecture.md, "Admin requests
 * on the data plane"), so the client jar stays free of gRPC.
 *
 * <pre>{@code
 * try (FlexLogAdmin admin = FlexLogAdmin.create("127.0.0.1:7070")) {
 *   CreateColorResult orders = admin.createColor(NewColor.of("orders", "global").shards(2));
 *   admin.alterColor("orders", AlterColorOptions.retentionMs(86_400_000));
 *   for (ColorDescription color : admin.listColors()) {
 *     System.out.println(color.name() + " " + color.shardIds());
 *   }
 *   ClusterDescription cluster = admin.describeCluster();
 *   ReplicaDescription replica = admin.describeReplica(1); // records and bytes per tier
 * }
 * }</pre>
 *
 * <p>Each call goes to the first bootstrap server that can be reached (the next one when a server
 * is down or drops the connection) and fails after {@code delivery.timeout.ms} with {@code
 * FlexLogTimeoutException}. Errors are typed ({@code io.flexlog.core.error}): {@code
 * InvalidArgumentException} (a bad name, shard count, replication factor or retention value),
 * {@code UnknownColorException} (an unknown parent, or describing or altering a color that does not
 * exist), {@code ColorExistsException} (the name exists with other settings), {@code
 * NotEnoughNodesException} (fewer replica nodes than the replication factor), {@code
 * MetadataUnavailableException} (the metadata quorum has no leader, or no admin service answered;
 * retry), {@code UnreachableException} (no bootstrap server could be reached).
 *
 * <p>Thread-safe. The blocking methods wait for their {@code *Async} twin; the futures complete on
 * the admin client's own event loop ({@code flexlog-admin}), so their callbacks must not block.
 */
public final class FlexLogAdmin implements AutoCloseable {
  private final AdminCalls calls;

  private FlexLogAdmin(FlexLogConfig config) {
    this.calls = new AdminCalls(config);
  }

  /** An admin client of the cluster behind a comma-separated list of {@code host:port}. */
  public static FlexLogAdmin create(String bootstrapServers) {
    return create(FlexLogConfig.builder().bootstrapServers(bootstrapServers).build());
  }

  /**
   * An admin client with the given settings: {@code bootstrap.servers}, {@code connect.timeout.ms}
   * (each connection attempt) and {@code delivery.timeout.ms} (each call). It connects on each
   * call, not here.
   */
  public static FlexLogAdmin create(FlexLogConfig config) {
    return new FlexLogAdmin(config);
  }

  /**
   * An admin client of the cluster {@code log} is connected to, with its settings. The two are
   * independent: closing one leaves the other open.
   */
  public static FlexLogAdmin create(FlexLog log) {
    return create(log.config());
  }

  /**
   * Creates a color under an existing parent, with its ordering role and shards, and waits until
   * the cluster's nodes have applied it (or the service's apply timeout passed: see {@link
   * CreateColorResult#unacknowledgedNodeIds}). Idempotent by name: the same settings again succeed
   * with {@code created() == false}.
   *
   * @throws io.flexlog.core.error.InvalidArgumentException naming a bad name, shard count,
   *     replication factor, sequencer node or retention value
   * @throws io.flexlog.core.error.UnknownColorException when the parent does not exist
   * @throws io.flexlog.core.error.ColorExistsException when the name exists with other settings
   * @throws io.flexlog.core.error.NotEnoughNodesException when the cluster has fewer replica nodes
   *     than the replication factor
   * @throws io.flexlog.core.error.MetadataUnavailableException when the metadata quorum has no
   *     leader or no admin service answered; the color may still appear: retrying is safe
   */
  public CreateColorResult createColor(NewColor color) {
    return FlexLog.await(createColorAsync(color));
  }

  /** {@link #createColor} without waiting. */
  public CompletableFuture<CreateColorResult> createColorAsync(NewColor color) {
    CreateColorDescriptor.Request request =
        new CreateColorDescriptor.Request(
            color.name(),
            color.parent(),
            color.shards(),
            color.replicationFactor(),
            color.sequencerNodeId().orElse(CreateColorDescriptor.PARENTS_SEQUENCER),
            color.retentionMs(),
            color.retentionBytes());
    return calls.call(
        MessageType.CREATE_COLOR,
        (alloc, id) -> CreateColorDescriptor.encodeRequest(alloc, id, request),
        MessageType.CREATE_COLOR_RESPONSE,
        frame -> {
          CreateColorDescriptor.Response r = CreateColorDescriptor.decodeResponse(frame);
          return new CreateColorResult(
              description(r.color()), r.created(), r.topologyVersion(), r.unacknowledgedNodeIds());
        });
  }

  /**
   * Changes a color's retention (the settings of a color that may change; those left out keep their
   * value) as a new topology version, and waits until the cluster's nodes have applied it (or the
   * service's apply timeout passed: see {@link AlterColorResult#unacknowledgedNodeIds}). The
   * replicas trim by the new retention within a few seconds (docs/architecture.md#retention).
   * Altering to the settings the color has succeeds with {@code changed() == false}.
   *
   * @throws io.flexlog.core.error.InvalidArgumentException naming a value that is neither -1 nor
   *     positive
   * @throws io.flexlog.core.error.UnknownColorException when the cluster has no color of that name
   * @throws io.flexlog.core.error.MetadataUnavailableException when the metadata quorum has no
   *     leader or no admin service answered; the change may still be applied: retrying is safe
   */
  public AlterColorResult alterColor(String name, AlterColorOptions options) {
    return FlexLog.await(alterColorAsync(name, options));
  }

  /** {@link #alterColor} without waiting. */
  public CompletableFuture<AlterColorResult> alterColorAsync(
      String name, AlterColorOptions options) {
    if (name == null || name.isEmpty()) {
      return CompletableFuture.failedFuture(
          new InvalidArgumentException("alterColor needs a color name, got '" + name + "'"));
    }
    AlterColorDescriptor.Request request =
        new AlterColorDescriptor.Request(name, options.retentionMs(), options.retentionBytes());
    return calls.call(
        MessageType.ALTER_COLOR,
        (alloc, id) -> AlterColorDescriptor.encodeRequest(alloc, id, request),
        MessageType.ALTER_COLOR_RESPONSE,
        frame -> {
          AlterColorDescriptor.Response r = AlterColorDescriptor.decodeResponse(frame);
          return new AlterColorResult(
              description(r.color()), r.changed(), r.topologyVersion(), r.unacknowledgedNodeIds());
        });
  }

  /** Every color of the cluster, in id order. */
  public List<ColorDescription> listColors() {
    return FlexLog.await(listColorsAsync());
  }

  /** {@link #listColors} without waiting. */
  public CompletableFuture<List<ColorDescription>> listColorsAsync() {
    return describeColors("")
        .thenApply(r -> r.colors().stream().map(FlexLogAdmin::description).toList());
  }

  /**
   * One color.
   *
   * @throws io.flexlog.core.error.UnknownColorException when the cluster has no color of that name
   */
  public ColorDescription describeColor(String name) {
    return FlexLog.await(describeColorAsync(name));
  }

  /** {@link #describeColor} without waiting. */
  public CompletableFuture<ColorDescription> describeColorAsync(String name) {
    if (name == null || name.isEmpty()) {
      return CompletableFuture.failedFuture(
          new InvalidArgumentException("describeColor needs a color name, got '" + name + "'"));
    }
    return describeColors(name).thenApply(r -> description(r.colors().get(0)));
  }

  private CompletableFuture<DescribeColorsDescriptor.Response> describeColors(String name) {
    return calls.call(
        MessageType.DESCRIBE_COLORS,
        (alloc, id) -> DescribeColorsDescriptor.encodeRequest(alloc, id, name),
        MessageType.DESCRIBE_COLORS_RESPONSE,
        DescribeColorsDescriptor::decodeResponse);
  }

  /** The cluster's nodes, colors and shards, its record size limit and its admin services. */
  public ClusterDescription describeCluster() {
    return FlexLog.await(describeClusterAsync());
  }

  /** {@link #describeCluster} without waiting. */
  public CompletableFuture<ClusterDescription> describeClusterAsync() {
    return calls.call(
        MessageType.DESCRIBE_CLUSTER,
        DescribeClusterDescriptor::encodeRequest,
        MessageType.DESCRIBE_CLUSTER_RESPONSE,
        frame -> {
          DescribeClusterDescriptor.Response r = DescribeClusterDescriptor.decodeResponse(frame);
          return new ClusterDescription(
              r.topology(),
              r.maxRecordBytes(),
              r.adminServices().stream()
                  .map(s -> new ClusterDescription.AdminService(s.nodeId(), s.host(), s.port()))
                  .toList());
        });
  }

  /**
   * What replica node {@code nodeId} stores (docs/operations.md#status): its records and bytes per
   * storage tier (DRAM cache, PM, SSD segments) and, per color it hosts a shard of, the trim point,
   * the tail it knows, its records and the retention it applies. The replica answers itself
   * (REPLICA_STATUS), at the address DESCRIBE_CLUSTER gives.
   *
   * @throws io.flexlog.core.error.InvalidArgumentException when the cluster has no replica node
   *     {@code nodeId}
   * @throws io.flexlog.core.error.UnreachableException when the replica cannot be reached or closes
   *     the connection before answering
   */
  public ReplicaDescription describeReplica(int nodeId) {
    return FlexLog.await(describeReplicaAsync(nodeId));
  }

  /** {@link #describeReplica} without waiting. */
  public CompletableFuture<ReplicaDescription> describeReplicaAsync(int nodeId) {
    return describeClusterAsync()
        .thenCompose(
            cluster -> {
              Optional<NodeAddress> node =
                  cluster.nodes().stream()
                      .filter(n -> n.id() == nodeId && n.kind() == NodeAddress.Kind.REPLICA)
                      .findFirst();
              if (node.isEmpty()) {
                return CompletableFuture.failedFuture(
                    new io.flexlog.core.error.InvalidArgumentException(
                        "the cluster has no replica node "
                            + nodeId
                            + " (replica nodes: "
                            + cluster.nodes().stream()
                                .filter(n -> n.kind() == NodeAddress.Kind.REPLICA)
                                .map(NodeAddress::id)
                                .toList()
                            + ")"));
              }
              return calls.call(
                  List.of(node.get().hostPort()),
                  MessageType.REPLICA_STATUS,
                  ReplicaStatusDescriptor::encodeRequest,
                  MessageType.REPLICA_STATUS_RESPONSE,
                  ReplicaStatusDescriptor::decodeResponse);
            });
  }

  private static ColorDescription description(ColorEntry entry) {
    Retention retention;
    try {
      retention = new Retention(entry.retentionMs(), entry.retentionBytes());
    } catch (IllegalArgumentException e) {
      throw new ProtocolException("color '" + entry.name() + "': " + e.getMessage());
    }
    return new ColorDescription(
        entry.id(),
        entry.name(),
        entry.parent().isEmpty() ? Optional.empty() : Optional.of(entry.parent()),
        entry.sequencerNodeId(),
        entry.replicationFactor(),
        entry.shardIds(),
        retention);
  }

  /** Fails the calls still in flight and releases the event loop. */
  @Override
  public void close() {
    calls.close();
  }
}
