/**
 * The network edge every FlexLog process shares: how Netty is set up, how a node opens a connection
 * to another, and how a failed connection ends.
 *
 * <ul>
 *   <li>{@link io.flexlog.core.net.Transport}: NIO event-loop groups of daemon threads named after
 *       their role (for example {@code flexlog-replica}, {@code flexlog-client}), the server and
 *       client channel classes, and {@link io.flexlog.core.net.Transport#MAX_FRAME_BYTES}, the
 *       frame limit of clients and replicas.
 *   <li>{@link io.flexlog.core.net.ClientBootstrap}: the one way to open a framed connection to a
 *       node: {@code TCP_NODELAY}, a connect timeout, and a pipeline of a {@link
 *       io.flexlog.core.protocol.FrameDecoder} followed by the caller's handler. Used by the
 *       sequencer's {@code ParentConnector}, the replica's sequencer and peer links, the client's
 *       connections and metadata fetcher, and the ordering benchmark's load client.
 *   <li>{@link io.flexlog.core.net.QueuedConnection}: an outgoing connection that connects on first
 *       use, queues (bounded) what is written while it connects and drops it if the attempt fails;
 *       the client's per-node connections and the replica's peer links.
 *   <li>{@link io.flexlog.core.net.ConnectionErrors}: the {@code exceptionCaught} policy of every
 *       node and of the client: a {@link io.flexlog.core.error.ProtocolException} (thrown directly
 *       or wrapped by the decoder) is answered with an ERROR frame of code {@code PROTOCOL}, then
 *       the connection is closed; an {@link java.io.IOException} is logged at debug and any other
 *       error at warn before closing. Only the failed connection is affected.
 * </ul>
 *
 * <p>Callers: {@code SequencerNode} and {@code ParentConnector} (flexlog-sequencer), the replica's
 * node, server handler, sequencer links and peer links (flexlog-replica), the client's connections
 * and metadata fetcher ({@code io.flexlog.client.internals}) and the ordering benchmark
 * (flexlog-bench). This package calls only Netty, SLF4J and {@code io.flexlog.core.protocol}.
 *
 * <p>Threading: the classes other than {@code QueuedConnection} hold no state; a {@code
 * QueuedConnection} is confined to its bootstrap's event loop. The bootstraps and handlers they
 * build run on the event loop of the channel they serve, so a caller that passes one event loop
 * keeps its handler on that loop's thread. Reconnecting is the caller's business ({@link
 * io.flexlog.core.util.Backoff}). Threads per process: {@code docs/architecture.md} ("Processes and
 * threads").
 */
package io.flexlog.core.net;
