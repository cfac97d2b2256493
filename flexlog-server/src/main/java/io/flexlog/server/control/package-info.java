/**
 * The control plane: the cluster metadata, AddColor and AlterColor (a color's retention, {@link
 * io.flexlog.server.control.ColorAlteration}), and the distribution of every new topology version
 * to the nodes, over the admin gRPC service {@code flexlog.admin.v1.FlexLogAdmin}.
 *
 * <ul>
 *   <li>{@link io.flexlog.server.control.ClusterController} is the metadata authority, run by every
 *       node of the metadata quorum ({@code control.quorum}, on Apache Ratis; it commits through a
 *       {@link io.flexlog.server.control.MetadataLog}): it validates an AddColor ({@link
 *       io.flexlog.server.control.ColorSpec}), builds the next version with {@code ColorCreation}
 *       (which places the new shards with {@code Placement}: distinct replica nodes, least-loaded
 *       first), commits the new version, then hands it to the sequencer nodes first and to the
 *       replica nodes once those acknowledged (or after the apply timeout). Nodes in the same
 *       process are updated directly; the others watch.
 *   <li>{@link io.flexlog.server.control.AdminServer} serves {@link
 *       io.flexlog.server.control.AdminService}, the gRPC face of the controller, which converts
 *       messages and errors with {@code TopologyProtos} and {@code AdminErrors} (flexlog-core).
 *       {@link io.flexlog.server.control.AdminClient}: its blocking client ({@code colors --admin},
 *       tests). {@link io.flexlog.server.control.AdminFrameRelay}: every node's relay of the admin
 *       frames clients send on the data plane (CREATE_COLOR, ALTER_COLOR, DESCRIBE_COLORS,
 *       DESCRIBE_CLUSTER) to an admin service, over that client.
 *   <li>{@link io.flexlog.server.control.TopologyWatcher}: every other node's WatchTopology stream;
 *       it applies each newer version (the caller stores it, then updates its node) and
 *       acknowledges it with AckTopology. {@link io.flexlog.server.control.TopologyBootstrap} picks
 *       a node's starting topology: the stored colors and shards win over the cluster file.
 *   <li>{@link io.flexlog.server.control.MetadataStore} and {@link
 *       io.flexlog.server.control.MetadataFileDescriptor}: the durable {@code cluster-metadata}
 *       file (header with magic, format version and CRC32C, then the protobuf topology), written
 *       through {@code DurableFiles}.
 * </ul>
 *
 * <p>Callers: {@link io.flexlog.server.NodeProcess}, {@link io.flexlog.server.dev.DevCluster} and
 * the {@code colors} command. Threading: {@code ClusterController} is thread-safe; its monitor
 * serializes changes while gRPC executor threads call it concurrently. Each watcher applies
 * versions one at a time, in order, and reconnects on its {@code flexlog-topology-watcher-N} thread
 * after a backoff of 50 ms doubling to 1 s, asking only for newer versions. The relay calls the
 * service on its own {@code flexlog-admin-relay-N} threads, never on a node's event loop.
 *
 * <p>Failures: AddColor fails with {@code UnknownColorException} (unknown parent), {@code
 * ColorExistsException}, {@code NotEnoughNodesException} or {@code InvalidArgumentException}, sent
 * as a gRPC status plus the FlexLog code. A metadata file that fails its checks is refused with
 * {@link io.flexlog.server.control.CorruptMetadataException} and the node does not start. An
 * invalid version received by a watcher, or one its node fails to apply, is logged and not
 * acknowledged. Protocol: {@code docs/architecture.md} ("AddColor and topology distribution"); the
 * service's calls: {@code docs/protocol.md}; the file: {@code docs/operations.md}.
 */
package io.flexlog.server.control;
