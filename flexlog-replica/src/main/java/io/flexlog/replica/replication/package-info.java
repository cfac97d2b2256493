/**
 * The replication protocol of a replica node: appends, reads, trims, subscriptions and the token
 * sync, as state machines free of sockets and threads (docs/architecture.md).
 *
 * <h2>Who talks to whom</h2>
 *
 * <ul>
 *   <li>{@link io.flexlog.replica.replication.ReplicationEngine} is the facade the network reaches:
 *       {@code onXxx(connection, frame)} for client and peer frames, {@code onXxx(sequencerId,
 *       frame)} for sequencer frames, link and connection events. It decodes each frame's fields
 *       and calls the state machine of the frame's concern. In a running node the adapter {@code
 *       io.flexlog.replica.node.ReplicaAdapter} routes frames to it by type; the deterministic
 *       simulation calls it directly.
 *   <li>What the engine needs from its surroundings is injected: a {@link
 *       io.flexlog.replica.replication.ReplicaRuntime} (end-of-turn task, timers, clock), a {@code
 *       LogStorage}, a {@link io.flexlog.replica.replication.SequencerGateway} (ORDER_REQUESTs), a
 *       {@link io.flexlog.replica.replication.PeerGateway} (TOKEN_SYNC to the other replicas), and
 *       every client or peer connection as a {@link io.flexlog.replica.replication.Connection}.
 *       None of the state machines imports Netty's channel types.
 *   <li>{@code ShardLogs}: the hosted shards under the latest topology and one {@code ColorLog} per
 *       (shard, color): SN index, {@code committedThrough}, blind ranges, join marks. Watermarks,
 *       join marks and lost links land here; every other state machine reads it.
 *   <li>{@code AppendPath}: APPEND stored as pending, its token batched into the turn's
 *       ORDER_REQUEST of its (shard, color), committed when its SN arrives (or at once, if the SN
 *       came first), acknowledged once durable; retries answered with the first SN. {@code
 *       AppendSync}: its side of the sync phase (the SN a token has here, adopted and fetched SNs,
 *       the order requests of a lost link).
 *   <li>{@code ReadPath}: READ answered FOUND, ABSENT, TRIMMED or RETRY, or held until a commit or
 *       watermark decides it or its hold time passes on the runtime's clock.
 *   <li>{@code Trims}: TRIM. {@code RetentionPolicy} (with {@code RetentionSamples}): the colors'
 *       retention, decided by one replica per color and applied through the trim points
 *       (docs/architecture.md#retention). {@code SubscriptionService}: SUBSCRIBE streams with
 *       credit, join marks and heartbeats. {@code SyncPhase} and {@code TokenSync}: what happens
 *       when a sequencer link comes up (ask the other replicas of the shard which pending tokens
 *       already have an SN, adopt those, request the rest) or breaks (its shards' logs turn blind).
 *   <li>{@code ReplicaPublisher} encodes every frame the state machines send, from primitive
 *       arguments, and remembers the connections written to. {@code TurnConductor} ends each turn:
 *       flush the log, tell the atomic component ({@link
 *       io.flexlog.replica.replication.StagingHook}), send the order requests, publish the commits
 *       (index, acks), move {@code committedThrough}, answer held reads, pump subscriptions, flush
 *       each touched connection once.
 * </ul>
 *
 * <h2>Durability and ordering</h2>
 *
 * <p>An order request leaves only after its pending entry is flushed, and an ack only after its
 * commit is flushed: both wait for the end of the turn that wrote them. A watermark covers only the
 * shards attached through the sequencer node that sent it, because the FIFO order of responses
 * before watermarks holds per connection. Reads and subscriptions never serve an SN above a log's
 * {@code committedThrough}, so no smaller SN of that shard can appear later.
 *
 * <h2>Failures</h2>
 *
 * <ul>
 *   <li>A lost sequencer link: assignments sent meanwhile may never arrive, so the shard's logs
 *       mark the range up to the next watermark blind; reads in it answer RETRY and unsynchronised
 *       subscriptions are refused with NOT_READY, so clients go to another replica.
 *   <li>A sequencer link that comes up again (WELCOME): before re-requesting SNs for pending
 *       tokens, the replica asks the other replicas of the shard, so that a token one of them
 *       already committed keeps its SN. A peer answers only once no response of an older sequencer
 *       process can still reach it.
 *   <li>A restarted replica: {@code recover()} rebuilds the index from the log; pending entries
 *       wait for the link to come up and go through the token sync.
 *   <li>A closed client connection: its subscriptions and held reads are dropped; pending appends
 *       still commit, and a retry on another connection gets the ack.
 *   <li>A full log: the append is refused with STORAGE_FULL.
 * </ul>
 *
 * <p>Threading: everything in this package runs on the one thread of the node's runtime (the Netty
 * event loop of a running node) and is not thread-safe.
 */
package io.flexlog.replica.replication;
