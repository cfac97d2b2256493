/**
 * Atomic multi-color appends, the replica side: a replica of the broker shard stages every member
 * of a group in its own log, decides END or ABORTED, forwards the members of an ended group to
 * their target shards and answers the client. The protocol and the outcomes a client sees are in
 * {@code docs/atomic-append.md}; its place among the other protocols in {@code
 * docs/architecture.md}.
 *
 * <h2>Who talks to whom</h2>
 *
 * <ul>
 *   <li>The replication engine owns the log and the event loop. It hands this package, through
 *       {@link io.flexlog.replica.replication.StagingHook}, the staging entries found by recovery,
 *       the client frames STAGE and COMMIT_GROUP, and the end of every log flush. {@link
 *       io.flexlog.replica.atomic.AtomicAppends} implements the hook; it only wires the roles below
 *       and dispatches to them.
 *   <li>{@code Stager} checks a STAGE against the topology and limits and appends the member.
 *       {@code GroupDecisions} holds the rules: END on COMMIT_GROUP once every member is staged and
 *       no ABORTED was written, ABORTED from the abandon timer once no END was written, DONE once
 *       every member is placed or failed. {@code Forwarder} sends the members of a group with a
 *       durable END as APPENDs with their original tokens and counts the APPEND_ACKs; {@code
 *       ForwardErrors} tells a refusal retrying may cure from one it cannot. {@code GroupRecovery}
 *       rebuilds the groups from the staging entries after a restart. {@code Housekeeping} is the
 *       one periodic timer: re-sends, abandon, retention, reclaim of the staging color.
 *   <li>{@code StagingLog} writes the staging entries (layout {@link
 *       io.flexlog.replica.atomic.StagedEntryDescriptor}) and the staging color's trim point;
 *       {@code GroupTable} holds the groups this replica knows ({@code StagedGroup}); {@code
 *       AfterFlush} holds what may only happen once the entries written before are durable (acks,
 *       the start of forwarding, answers); {@code AtomicReplies} encodes every frame to clients.
 *   <li>The edges: clients are {@link io.flexlog.replica.replication.Connection}s, other replica
 *       nodes a {@link io.flexlog.replica.atomic.ForwardTransport} (over TCP: {@link
 *       io.flexlog.replica.atomic.PeerLinks}, the only class here that sees Netty channels), time
 *       and timers a {@link io.flexlog.replica.replication.ReplicaRuntime} ({@link
 *       io.flexlog.replica.replication.EventExecutorRuntime} on a running node). So the roles run
 *       in unit tests and in a simulation without sockets, on virtual time. Answers of target
 *       replicas reach {@link io.flexlog.replica.atomic.AtomicAppends#onPeerFrame} from the node's
 *       peer links.
 * </ul>
 *
 * <h2>Ordering and durability</h2>
 *
 * <p>Every staging entry is committed at once with a local SN of the reserved staging color, so it
 * never blocks the log as a pending entry, and nothing acts on it before the engine's next flush:
 * STAGE_ACK, forwarding after END, GROUP_RESULT after DONE and GROUP_ABORTED after ABORTED all wait
 * in {@code AfterFlush} for the end of turn. Per replica, whichever of END and ABORTED was written
 * first decides; only a replica with a durable END forwards, and since the client commits only
 * after every replica of the broker shard holds every member, any of them can finish the group
 * alone.
 *
 * <h2>Failures</h2>
 *
 * <ul>
 *   <li>The client gone before COMMIT_GROUP: the group is aborted {@code atomic-abandon-after-ms}
 *       after its last STAGE and its entries are reclaimed; nothing of it ever appears.
 *   <li>A replica restart: a group with END and no DONE is forwarded again with the same tokens
 *       (targets and sequencers deduplicate by token, so each member is placed once); a group with
 *       DONE or ABORTED is answered from that entry for its retention; a group with neither gets a
 *       new abandon timeout.
 *   <li>A target that refuses or cannot be reached: lost connections and NOT_READY, STORAGE_FULL,
 *       INTERNAL, or an unknown color or shard this replica still knows, are retried with capped
 *       exponential backoff ({@code atomic-forward-retry-ms}, {@code atomic-forward-retry-max-ms});
 *       RECORD_TOO_LARGE, INVALID_ARGUMENT, PROTOCOL, or a target gone from this replica's
 *       topology, fail the member for good: logged, counted in {@code
 *       flexlog.replica.atomic.forward.failures}, recorded in DONE, answered with
 *       ATOMIC_MEMBER_FAILED.
 *   <li>A full log: a member that does not fit gets STORAGE_FULL; END that does not fit too; an
 *       ABORTED that does not fit is tried again on the next tick.
 *   <li>A late COMMIT_GROUP for a group forgotten after {@code atomic-result-retention-ms} (or
 *       beyond {@code atomic-result-retention-count}) gets ATOMIC_OUTCOME_UNKNOWN, never a second
 *       forward.
 * </ul>
 *
 * <p>Threading: everything here runs on the replica node's one event loop and is not thread-safe;
 * the only exception is the fault-injection switch {@link
 * io.flexlog.replica.atomic.AtomicAppends#loseAnswersWhile}.
 */
package io.flexlog.replica.atomic;
