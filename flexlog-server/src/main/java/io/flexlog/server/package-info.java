/**
 * Node processes: how one sequencer or replica node of a multi-process cluster is started from a
 * cluster file, with its share of the control plane.
 *
 * <ul>
 *   <li>{@link io.flexlog.server.Nodes} builds and starts the nodes themselves: a {@code
 *       SequencerNode} (flexlog-sequencer) from the topology and the node's settings, or a {@code
 *       ReplicaNode} (flexlog-replica) on storage it opens through {@code StorageEngines} (engine
 *       {@code auto} picks llpl or the mapped-file engine and prints why), printing one banner line
 *       with the engine, durability and tier sizes.
 *   <li>{@link io.flexlog.server.NodeProcess} adds the control plane around one node: the starting
 *       topology from {@code TopologyBootstrap} (the cluster file or the newer version stored in
 *       the data directory), and, when the cluster file has an {@code admin-port}, either the
 *       {@code ClusterController} and {@code AdminServer} (on the node hosting the root color) or a
 *       {@code TopologyWatcher} that stores each new version, then hands it to the node.
 * </ul>
 *
 * <p>Who talks to whom: the {@code flexlog sequencer} and {@code flexlog replica} commands of
 * {@code io.flexlog.server.cli} start a {@code NodeProcess}; the dev cluster ({@code
 * io.flexlog.server.dev}) calls {@code Nodes} directly for every node of its one process. This
 * package calls {@code io.flexlog.server.control}, {@code io.flexlog.server.config}, the sequencer
 * and replica modules, and Micrometer (the caller passes the registry, usually the one of {@link
 * io.flexlog.server.metrics.MetricsEndpoint}).
 *
 * <p>Threading: the code here runs once, on the caller's thread, at start and at close; the nodes
 * then run on their own event loops and the watcher on its own thread (see {@code
 * docs/architecture.md}, "Processes and threads").
 *
 * <p>Failures: starting a node of the wrong kind is an {@link IllegalArgumentException} naming the
 * node and the cluster file; a corrupt or unwritable {@code cluster-metadata} file is an {@link
 * java.io.IOException}, and so, for a sequencer, are a bad epoch file and a port that cannot be
 * bound. A sequencer that fails after its node started is closed again before the error propagates,
 * and so is a replica's storage when its node cannot be built. Running a cluster: {@code
 * docs/operations.md}.
 */
package io.flexlog.server;
