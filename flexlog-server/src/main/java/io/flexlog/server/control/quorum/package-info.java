/**
 * The metadata quorum: the cluster metadata as the replicated state machine of an Apache Ratis
 * group of the nodes with an {@code admin-port} (docs/architecture.md, "Metadata quorum").
 *
 * <ul>
 *   <li>{@link io.flexlog.server.control.quorum.QuorumMember}: what a quorum node runs (its peer,
 *       its controller, its admin service) and the seeding of an empty quorum.
 *   <li>{@link io.flexlog.server.control.quorum.MetadataQuorum}: the Ratis server and client of one
 *       node; every call fails with {@code MetadataUnavailableException} after the request timeout
 *       instead of hanging.
 *   <li>{@link io.flexlog.server.control.quorum.MetadataStateMachine} applies the conditional
 *       entries of {@link io.flexlog.server.control.quorum.MetadataCommand} and snapshots.
 *   <li>{@link io.flexlog.server.control.quorum.QuorumJoinMarks}: a sequencer node's join marks in
 *       the quorum ({@code JoinMarkCommand} entries), so that they follow a role to its next leader
 *       (docs/architecture.md#join-marks).
 * </ul>
 *
 * <p>Threading: Ratis applies entries on its own thread; committed topologies reach the {@code
 * ClusterController} on one {@code flexlog-metadata-dispatch-N} thread, in order.
 */
package io.flexlog.server.control.quorum;
