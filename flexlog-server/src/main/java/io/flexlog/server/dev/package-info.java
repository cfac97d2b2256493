/**
 * The embedded development cluster behind {@code flexlog dev}: every node of a small cluster in one
 * process on 127.0.0.1, with the admin service, so that a laptop runs the whole system.
 *
 * <ul>
 *   <li>{@link io.flexlog.server.dev.DevCluster} starts, in one JVM, the sequencer nodes and then
 *       the replica nodes of a {@link io.flexlog.server.dev.DevCluster.Layout} ({@code FLAT}: one
 *       sequencer and one shard of three replicas; {@code TREE}: a root and two leaf sequencers
 *       with two shards of three replicas per leaf), each with its own data directory ({@code
 *       sequencer-N}, {@code replica-N}), then a {@code ClusterController} and an {@code
 *       AdminServer}, and waits until every replica is connected to its sequencers. It also starts
 *       a cluster of any given topology, which end-to-end tests use.
 *   <li>{@link io.flexlog.server.dev.DevProcesses}: the same idea as separate processes ({@code
 *       flexlog dev --processes}): three sequencer nodes that also form the metadata quorum and
 *       three replica nodes, each a child JVM running {@code flexlog sequencer|replica} on a
 *       cluster file it writes, so that a test or a user can kill any one with SIGKILL and restart
 *       it.
 *   <li>{@link io.flexlog.server.dev.TopologyReport}: the listing of colors, shards and nodes that
 *       {@code flexlog dev} prints at start.
 * </ul>
 *
 * <p>Who talks to whom: called by the {@code dev} command ({@code io.flexlog.server.cli}), by
 * flexlog-bench (the end-to-end benchmark's {@code EmbeddedTree}, in the tree layout) and by
 * end-to-end tests. It builds nodes with {@link io.flexlog.server.Nodes} and reuses the control
 * plane of {@code io.flexlog.server.control}: {@code TopologyBootstrap} picks the starting topology
 * (stored colors win, so a restart on the same directory keeps every record and every color added
 * since), and since every node lives in this process the controller applies a new version to them
 * directly, sequencer nodes first.
 *
 * <p>Threading: {@code start} and {@code close} run on the caller's thread; each node then runs on
 * its own event loop, and the admin service on gRPC's threads, as in a multi-process cluster.
 *
 * <p>Failures: a data directory written by the other layout is refused with an {@link
 * IllegalArgumentException}; replicas that do not connect within 10 seconds fail the start with an
 * {@link IllegalStateException}. On any failure the nodes started so far are closed before the
 * error propagates. Usage: {@code docs/operations.md} ("A local cluster in one process").
 */
package io.flexlog.server.dev;
