/**
 * The model side of the control plane: conversions between FlexLog's types and the generated
 * protobuf/gRPC classes of the admin service ({@code flexlog.admin.v1.FlexLogAdmin}, generated into
 * {@code io.flexlog.admin.v1} from {@code src/main/proto}).
 *
 * <ul>
 *   <li>{@link io.flexlog.core.admin.TopologyProtos}: {@link io.flexlog.core.model.Topology} to and
 *       from its protobuf message, which is both what {@code GetTopology} and {@code WatchTopology}
 *       return and the body of a node's durable {@code cluster-metadata} file; and the {@code
 *       ColorInfo} that {@code ListColors} and {@code AddColor} report.
 *   <li>{@link io.flexlog.core.admin.AdminErrors}: how a {@link
 *       io.flexlog.core.error.FlexLogException} crosses gRPC: a gRPC status for generic tools plus
 *       the {@link io.flexlog.core.error.ErrorCode} name in the trailer {@code flexlog-error-code},
 *       and back, so a caller of the admin service gets the same typed exception as on the data
 *       plane.
 * </ul>
 *
 * <p>Who talks to whom: only flexlog-server calls in: the admin service ({@code AdminService}) and
 * its client ({@code AdminClient}) map errors and topologies here, {@code TopologyWatcher} converts
 * each streamed version, {@code MetadataStore} reads and writes the metadata file. The protobuf and
 * gRPC dependencies of flexlog-core are optional, so the client jar never loads this package.
 *
 * <p>Failures: {@link io.flexlog.core.admin.TopologyProtos#fromProto} throws {@link
 * io.flexlog.core.error.InvalidArgumentException} naming the inconsistency (an unknown node kind, a
 * shard on an unknown node, a cycle in the color tree). {@link
 * io.flexlog.core.admin.AdminErrors#fromStatus} maps a status without a FlexLog code to {@link
 * io.flexlog.core.error.FlexLogTimeoutException} ({@code DEADLINE_EXCEEDED}) or a plain {@code
 * FlexLogException} naming the target; an unknown code name reads as {@code INTERNAL}. The classes
 * are stateless and thread-safe. The service's calls: {@code docs/protocol.md} ("Control plane");
 * AddColor and topology distribution: {@code docs/architecture.md}.
 */
package io.flexlog.core.admin;
