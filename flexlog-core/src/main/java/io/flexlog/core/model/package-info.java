/**
 * The cluster's vocabulary, shared by every module: {@link io.flexlog.core.model.Color} (a named,
 * totally ordered log; colors form a tree rooted at {@code global}), {@link
 * io.flexlog.core.model.Shard} (a replica set attached to one color), {@link
 * io.flexlog.core.model.NodeAddress} (a sequencer or replica node and its data-plane port), {@link
 * io.flexlog.core.model.Topology} (one immutable version of all three) and the two primitive
 * encodings of the data path: {@link io.flexlog.core.model.Sn} ({@code epoch << 32 | counter}, 0
 * meaning "no SN") and {@link io.flexlog.core.model.Token} (the 128-bit idempotency key of an
 * append, which hot paths carry as two {@code long}s instead).
 *
 * <h2>Who talks to whom</h2>
 *
 * <p>This package calls nothing outside the JDK. Topologies are built by the cluster file and the
 * control plane in flexlog-server ({@code ClusterFile}, {@code ClusterController}, {@code
 * TopologyBootstrap}), by {@link io.flexlog.core.admin.TopologyProtos} from the admin service's
 * protobuf message, and by {@link io.flexlog.core.protocol.MetadataDescriptor} from a
 * METADATA_RESPONSE frame. The sequencer derives its roles and routes from a topology, the replica
 * its hosted shards, the client the shards it sends a color's appends and reads to ({@link
 * io.flexlog.core.model.Topology#shardsInSubtree(int)}).
 *
 * <h2>Failures and threading</h2>
 *
 * <p>Every type validates in its constructor and throws {@link IllegalArgumentException} naming the
 * problem: an illegal color name, a duplicate id, a color whose parent or sequencer node is
 * unknown, a cycle in the color tree, a shard on an unknown replica node or with two replicas on
 * one node. Callers turn that into their own error: {@code InvalidArgumentException} on the control
 * plane, {@code ProtocolException} for a METADATA_RESPONSE, a startup error naming the cluster
 * file. All types are immutable and safe to share between threads; a topology change is a new
 * {@code Topology} with a larger version. Concepts: {@code docs/architecture.md} ("Concepts").
 */
package io.flexlog.core.model;
