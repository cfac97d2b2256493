/**
 * The replica node's process shell and its Netty edge: everything here touches sockets, nothing
 * here holds protocol state.
 *
 * <h2>Who talks to whom</h2>
 *
 * <ul>
 *   <li>{@link io.flexlog.replica.node.ReplicaNode} owns one Netty event loop, the log, the {@link
 *       io.flexlog.replica.replication.ReplicationEngine} and the atomic-append component, wires
 *       them together and serves clients on its port. {@code flexlog-server} starts it from a
 *       cluster file or the dev cluster.
 *   <li>{@code ReplicaServerHandler} wraps each accepted channel in a {@code ChannelConnection} (a
 *       {@link io.flexlog.replica.replication.Connection}) and hands every decoded frame to the
 *       {@link io.flexlog.replica.node.ReplicaAdapter}, which dispatches by frame type to the
 *       engine's {@code onXxx} calls or to the atomic component. The deterministic simulation
 *       ({@code flexlog-sim}) drives the same adapter without sockets.
 *   <li>{@code SequencerLink} is the connection to one sequencer node: HELLO with the shards that
 *       node orders for, ORDER_REQUEST batches from the engine's {@link
 *       io.flexlog.replica.replication.SequencerGateway}, and every answer in arrival order to the
 *       adapter; it reconnects with {@link io.flexlog.core.util.Backoff} and says HELLO again after
 *       UNKNOWN_SHARD (the sequencer has not applied the topology yet).
 * </ul>
 *
 * <p>Threading: every handler and link runs on the node's one event loop, the thread that owns the
 * engine; public {@code ReplicaNode} methods hand their work to it. Failures: a broken connection
 * is closed and reported to the engine ({@code onConnectionClosed}, {@code onSequencerLinkLost}); a
 * protocol violation closes only that connection. See docs/architecture.md#processes-and-threads
 * and docs/operations.md.
 */
package io.flexlog.replica.node;
