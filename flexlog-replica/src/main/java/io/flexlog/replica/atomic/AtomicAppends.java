package io.flexlog.replica.atomic;

import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.StageDescriptor;
import io.flexlog.replica.replication.Connection;
import io.flexlog.replica.replication.ReplicaLimits;
import io.flexlog.replica.replication.ReplicaRuntime;
import io.flexlog.replica.replication.ReplicationEngine;
import io.flexlog.replica.replication.StagingHook;
import io.flexlog.replica.storage.LogStorage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The replica side of atomic multi-color appends (docs/architecture.md#atomic-multi-color-append,
 * paper §6.4 Alg. 2), on a replica of the broker shard S. The protocol, the client's outcome rules
 * and the settings are also described for users in {@code docs/atomic-append.md}.
 *
 * <h2>Protocol</h2>
 *
 * <ol>
 *   <li><b>Stage.</b> The client gives every member its own token (the one it will carry in its
 *       target color), picks the member's target shard from that token, and sends each member as a
 *       STAGE frame to every replica of S. A replica checks the member against its topology and
 *       limits (target color and shard exist, the shard belongs to the color, the payload fits) and
 *       refuses it with a typed error otherwise; it appends it to its log as an entry of the
 *       reserved staging color ({@link StagingHook#STAGING_COLOR_ID}, layout {@link
 *       StagedEntryDescriptor}), commits it at once with a local SN of the staging color (so it
 *       never blocks the log as a pending entry), and answers STAGE_ACK after the flush.
 *   <li><b>Commit.</b> Once every replica of S acknowledged every member, the client sends
 *       COMMIT_GROUP to every replica of S. A replica holding every member that has not aborted the
 *       group appends an END entry; once it is durable the group is bound to appear.
 *   <li><b>Forward.</b> A replica with a durable END acts as a client: it sends each member as an
 *       APPEND with the member's original token to every replica of the member's target shard, and
 *       re-sends with capped exponential backoff until every replica acknowledged one SN. The
 *       target replicas and sequencers deduplicate by token, so several replicas of S forwarding
 *       the same group, and forwarding again after a restart, place each member exactly once. An
 *       error that cannot go away by retrying (RECORD_TOO_LARGE, INVALID_ARGUMENT, PROTOCOL, or
 *       UNKNOWN_COLOR / UNKNOWN_SHARD for a target this replica's topology no longer has) stops the
 *       forwarding of that member: it is logged once, counted in {@code
 *       flexlog.replica.atomic.forward.failures}, and recorded as failed in DONE. Other errors
 *       (NOT_READY, STORAGE_FULL, lost connections) are retried. Then the replica appends a DONE
 *       entry holding the SNs (or failure codes) and answers the clients waiting: GROUP_RESULT, or
 *       ATOMIC_MEMBER_FAILED naming the members.
 *   <li><b>Abort.</b> A group that got no END within {@link AtomicConfig#abandonAfter()} of its
 *       last STAGE (the client is gone) is durably aborted with an ABORTED entry; from then on this
 *       replica never writes END for it and answers COMMIT_GROUP with GROUP_ABORTED (only once the
 *       ABORTED entry is durable, which also counts the group in {@code
 *       flexlog.replica.atomic.groups.aborted}). END versus ABORTED is decided by whichever this
 *       replica wrote first. All or nothing still holds: only a replica with a durable END
 *       forwards.
 *   <li><b>Reclaim.</b> A finished (DONE durable) or aborted group is remembered in memory for
 *       {@link AtomicConfig#resultRetention()} (at most {@link AtomicConfig#resultRetentionCount()}
 *       of them) to answer late COMMIT_GROUP retries, then forgotten; COMMIT_GROUP for a group this
 *       replica does not know is answered with ATOMIC_OUTCOME_UNKNOWN. The trim point of the
 *       staging color follows just below the oldest staging SN still needed: the first entry of a
 *       group that is neither finished nor aborted, or the DONE / ABORTED entry of a remembered
 *       group (so answers survive a restart within the retention); trim and tiering reclaim the
 *       rest. A group with END and no DONE is never below it.
 *   <li><b>Recover.</b> On restart, a group with a durable END and no DONE is forwarded again; a
 *       group with DONE or ABORTED is answered from its entry (for the retention); a group without
 *       END or ABORTED starts a new abandon timeout; trimmed groups are simply gone.
 * </ol>
 *
 * <p>All or nothing: a member reaches its color only through a forwarder, a forwarder exists only
 * after an END, and an END is written only by a replica holding every member. Since the client
 * commits only after every replica of S holds every member, any replica that got the COMMIT_GROUP
 * can finish alone, even if the client and every other replica fail. The one exception is a member
 * whose forward fails permanently (see above): since STAGE validates every member, that needs a
 * target replica refusing what this replica accepted (e.g. a smaller max-record-bytes there).
 *
 * <h2>Roles</h2>
 *
 * <p>This class only wires the roles together and dispatches to them: {@link Stager} (STAGE),
 * {@link GroupDecisions} (COMMIT_GROUP, END, ABORTED, DONE), {@link Forwarder} with {@link
 * ForwardErrors} (forwarding and its results), {@link GroupRecovery}, {@link Housekeeping} (the
 * timer: retries, abandon, retention, reclaim), {@link StagingLog} (the staging entries), {@link
 * GroupTable} (the known groups), {@link AtomicReplies} (every frame to clients) and {@link
 * AfterFlush} (what waits for durability). None of them touches a socket or reads the time itself:
 * clients are {@link Connection}s, peers a {@link ForwardTransport}, time and timers a {@link
 * ReplicaRuntime}.
 *
 * <p>Threading: every method runs on the replica's event loop, except {@link #loseAnswersWhile}.
 */
public final class AtomicAppends implements StagingHook {
  /** The most members one atomic append may have. */
  public static final int MAX_MEMBERS = StageDescriptor.MAX_MEMBERS;

  /** Counts members whose forward failed permanently, tagged by node and error code. */
  public static final String FORWARD_FAILURES_METRIC = "flexlog.replica.atomic.forward.failures";

  /**
   * Counts groups this replica aborted (ABORTED durable, the abandon time passed without END),
   * tagged by node.
   */
  public static final String GROUPS_ABORTED_METRIC = "flexlog.replica.atomic.groups.aborted";

  private final ForwardTransport transport;
  private final GroupTable table;
  private final StagingLog log;
  private final AtomicReplies replies;
  private final AfterFlush afterFlush;
  private final Forwarder forwarder;
  private final GroupDecisions decisions;
  private final Stager stager;
  private final GroupRecovery recovery;
  private final Housekeeping housekeeping;

  /** The component of a replica node, attached to its engine. */
  public AtomicAppends(
      int nodeId,
      ReplicationEngine engine,
      LogStorage storage,
      ReplicaLimits limits,
      ReplicaRuntime scheduler,
      ForwardTransport transport,
      AtomicConfig config,
      MeterRegistry registry) {
    this(
        nodeId,
        engine::topology,
        engine::requestEndOfTurn,
        storage,
        limits,
        scheduler,
        transport,
        config,
        registry);
  }

  /**
   * @param topology this replica's current topology
   * @param requestEndOfTurn asks for a log flush followed by {@link #onFlushed()} on the loop,
   *     after the work already queued; idempotent within a turn
   * @param scheduler time and timers (virtual in tests and the simulation)
   */
  public AtomicAppends(
      int nodeId,
      Supplier<Topology> topology,
      Runnable requestEndOfTurn,
      LogStorage storage,
      ReplicaLimits limits,
      ReplicaRuntime scheduler,
      ForwardTransport transport,
      AtomicConfig config,
      MeterRegistry registry) {
    this.transport = transport;
    this.table = new GroupTable(config);
    this.log = new StagingLog(nodeId, storage);
    this.replies = new AtomicReplies(nodeId, config);
    this.afterFlush = new AfterFlush(requestEndOfTurn);
    this.forwarder =
        new Forwarder(
            nodeId, topology, log, transport, scheduler, config, registry, this::onForwarded);
    Runnable armTimer = this::armTimer;
    this.decisions =
        new GroupDecisions(
            nodeId,
            config,
            table,
            log,
            replies,
            afterFlush,
            forwarder,
            scheduler,
            armTimer,
            Counter.builder(GROUPS_ABORTED_METRIC)
                .tag("node", Integer.toString(nodeId))
                .description("atomic groups aborted: no commit within the abandon time")
                .register(registry));
    this.stager =
        new Stager(nodeId, topology, limits, table, log, replies, afterFlush, scheduler, armTimer);
    this.recovery = new GroupRecovery(nodeId, table, log, forwarder, scheduler);
    this.housekeeping =
        new Housekeeping(scheduler, config, table, log, forwarder, decisions, transport);
  }

  /** Groups this replica remembers, finished or not; for tests and metrics. */
  public int groupCount() {
    return table.size();
  }

  /** The staging color's trim point; for tests. */
  public long stagingTrimPoint() {
    return log.trimPoint();
  }

  /**
   * Fault injection for tests: while {@code lose} returns true, the connection of a client is
   * closed where it would get a GROUP_RESULT (or a member failure), so that answer is lost although
   * the group is finished. Any thread.
   */
  public void loseAnswersWhile(BooleanSupplier lose) {
    replies.loseAnswersWhile(lose);
  }

  @Override
  public void onRecoveredEntry(
      long address, int shardId, long tokenSession, long tokenSequence, long sn) {
    recovery.onEntry(address, shardId, tokenSession, tokenSequence, sn);
  }

  @Override
  public void onRecovered() {
    recovery.onRecovered();
    transport.flush();
    housekeeping.arm();
  }

  @Override
  public boolean onClientFrame(Connection connection, ByteBuf frame) {
    switch (FrameDescriptor.type(frame)) {
      case MessageType.STAGE -> stager.onStage(connection, frame);
      case MessageType.COMMIT_GROUP -> decisions.onCommitGroup(connection, frame);
      default -> {
        return false;
      }
    }
    return true;
  }

  /**
   * A frame from a replica of a target shard, in answer to a forwarded member (APPEND_ACK or
   * ERROR); the caller keeps ownership of the frame.
   */
  public void onPeerFrame(ByteBuf frame) {
    forwarder.onPeerFrame(frame);
  }

  @Override
  public void onFlushed() {
    if (afterFlush.runAll()) {
      transport.flush();
    }
    replies.flush();
  }

  /** Stops the timer; the node closes the transport. */
  public void close() {
    housekeeping.close();
  }

  private void onForwarded(StagedGroup group) {
    decisions.finish(group);
  }

  private void armTimer() {
    housekeeping.arm();
  }
}
