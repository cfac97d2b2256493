/**
 * The ordering state machine of one sequencer node, free of sockets and threads: it assigns
 * sequence numbers per color and forwards order requests up the sequencer tree
 * (docs/architecture.md#ordering-in-the-sequencer-tree, paper §5.2 and Alg. 1).
 *
 * <h2>Who talks to whom</h2>
 *
 * <ul>
 *   <li>{@link io.flexlog.sequencer.ordering.OrderingService} is the state machine of one node and
 *       the hub of this package: it sees connections as {@link
 *       io.flexlog.sequencer.ordering.Outbound}s (each wrapped in a {@link
 *       io.flexlog.sequencer.ordering.PeerLink}) and its loop, its clock and its parent connections
 *       as a {@link io.flexlog.sequencer.ordering.NodeRuntime}, so the deterministic simulations
 *       drive the same code as a running node. {@link
 *       io.flexlog.sequencer.ordering.SequencerInbound} dispatches one inbound connection's frames
 *       to it by type. Its durable epochs come through {@link
 *       io.flexlog.sequencer.ordering.NodeEpochs}, its meters are {@link
 *       io.flexlog.sequencer.ordering.SequencerMetrics}, and an {@link
 *       io.flexlog.sequencer.ordering.IssueObserver} may watch every SN it issues.
 *   <li>Ordering: {@code OrderingRole}, one hosted color (epoch, counter, token dedup, the turn's
 *       {@code ColorBatch} and child range requests in {@code ChildParts}). {@code ForwardRoute},
 *       one color forwarded up one tree edge (token dedup for local shards, {@code UpwardBatch}es,
 *       watermark hold and release). Both take tokens as a {@code TokenOrderer} and number their
 *       shards as {@code ShardSlots}. {@code Routing} computes roles and routes from the topology,
 *       {@code OrderingTables} holds them with their {@code JoinMarks} (saved in a {@link
 *       io.flexlog.sequencer.ordering.JoinMarkStore}, so they outlive the process and follow a role
 *       to its next leader; {@code JoinMarkTaker} takes them, also for shards whose mark a former
 *       leader lost), {@code TopologyChange} says which newer topologies can be applied, and {@code
 *       TopologyInstall} applies one (tables, registry, join marks, links); after a failover {@code
 *       TreeHealing} lets routes follow the moved roles.
 *   <li>Replicas below: {@code ReplicaRegistry} maps each shard to its replicas' connections
 *       ({@code ShardTargets}); {@code CatchUp} writes what a newly registered replica must hear
 *       first.
 *   <li>The tree: {@code ChildLinks} and {@code ChildRegistry}, child nodes below, their range
 *       requests and the per-child deduplication. {@code ParentLinks} and {@code ParentSession},
 *       parent nodes above, outstanding range requests and their re-sending.
 *   <li>{@code Broadcaster}: every frame going down (to replicas and child nodes), written once per
 *       connection and flushed once per turn. A refused request is a {@code Rejection}, answered
 *       with an ERROR frame.
 * </ul>
 *
 * <p>Outside this package: {@link io.flexlog.sequencer.SequencerNode} (the process shell) and the
 * adapters in {@code io.flexlog.sequencer.net} drive it from Netty; {@code flexlog-sim} embeds a
 * node through the public types above. Those public types, and the few public members of otherwise
 * package-private classes ({@code OrderingService.endTurn}, {@code TopologyChange}, the metric
 * names in {@code SequencerMetrics}), are internal to the sequencer: public only so that the shell,
 * the Netty adapters and the simulations can reach them, not an API for other modules.
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
 * <p>Threading: everything in this package runs on the node's one event loop (or the simulation's
 * single thread) and is not thread-safe.
 */
package io.flexlog.sequencer.ordering;
