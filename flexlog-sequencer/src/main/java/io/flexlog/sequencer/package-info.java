/**
 * The ordering layer: sequencer nodes that assign sequence numbers per color
 * (docs/architecture.md#ordering-in-the-sequencer-tree, paper §5.2 and Alg. 1).
 *
 * <h2>Who talks to whom</h2>
 *
 * <ul>
 *   <li>{@link io.flexlog.sequencer.SequencerNode} is the process-level shell: epoch store, Netty
 *       server, one event loop, connectors to parent nodes ({@code ParentConnector}).
 *   <li>{@link io.flexlog.sequencer.OrderingService} is the state machine of one node, free of
 *       sockets and threads: it sees connections as {@link io.flexlog.sequencer.Outbound}s and its
 *       loop as a {@link io.flexlog.sequencer.NodeRuntime}, so the deterministic simulations drive
 *       the same code as a running node. {@link io.flexlog.sequencer.SequencerInbound} dispatches
 *       one connection's frames to it by type ({@code SequencerChannelHandler} is its Netty
 *       adapter). These, with {@link io.flexlog.sequencer.PeerLink} (an opaque connection handle),
 *       {@link io.flexlog.sequencer.NodeEpochs}, {@link io.flexlog.sequencer.IssueObserver} and
 *       {@link io.flexlog.sequencer.SequencerMetrics}, are public only so that the whole-data-path
 *       simulation in {@code flexlog-sim} can embed a node; everything else stays package-private.
 *   <li>{@code OrderingRole}: one hosted color (epoch, counter, token dedup, the turn's batch and
 *       child range requests). {@code ForwardRoute}: one color forwarded up one tree edge (token
 *       dedup for local shards, upward batches, watermark hold and release). {@code Routing}
 *       computes both from the topology; {@code OrderingTables} holds them.
 *   <li>{@code ChildLinks} and {@code ChildRegistry}: child nodes below, their range requests and
 *       the per-child deduplication. {@code ParentLinks} and {@code ParentSession}: parent nodes
 *       above, outstanding range requests and their re-sending. {@code Broadcaster}: every frame
 *       going down, written once per connection and flushed once per turn.
 * </ul>
 *
 * <h2>The tree</h2>
 *
 * <p>Replicas send ORDER_REQUEST for their shard's color or any ancestor to the node hosting the
 * shard's color. A request climbs the colors hosted on a node in memory and leaves over the edge
 * from its topmost hosted color to the node hosting that color's parent (RANGE_REQUEST), until it
 * reaches the role of the requested color, which assigns a range {@code [sn, sn + n)}. Each hop
 * merges what arrived for one route in one event-loop turn into one request and splits the answer
 * back in order; the shard's node broadcasts ORDER_RESPONSE to every replica of the shard.
 * Watermarks go down the same FIFO connections (WATERMARK to replicas, TREE_WATERMARK to child
 * nodes), so a watermark arrives after the responses it covers.
 *
 * <h2>Failures</h2>
 *
 * <ul>
 *   <li>A broken link between two nodes: the child keeps each unanswered range request and re-sends
 *       it under the same request id on the next connection; the parent deduplicates ids per child
 *       incarnation and answers a re-sent id with its first range, never a second one. Until such a
 *       request is answered, the child holds the color's watermarks back, since the answer can
 *       carry SNs below a watermark the parent sent meanwhile.
 *   <li>A restarted parent: it starts in a larger durable epoch and has forgotten every request id,
 *       so the children's re-sent requests get fresh ranges in the new epoch. Ranges the old
 *       process may have assigned without delivering them stay unused: holes, which readers treat
 *       as such.
 *   <li>A restarted child: it presents a larger incarnation (its new epoch); the parent forgets the
 *       earlier incarnation's requests and drops answers owed to it. The child's replicas reconnect
 *       and re-send every token without an SN.
 * </ul>
 *
 * <p>Threading: everything below {@link io.flexlog.sequencer.SequencerNode} runs on the node's one
 * event loop and is not thread-safe.
 */
package io.flexlog.sequencer;
