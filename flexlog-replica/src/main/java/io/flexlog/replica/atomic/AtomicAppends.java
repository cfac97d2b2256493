package io.flexlog.replica.atomic;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.AppendAckDescriptor;
import io.flexlog.core.protocol.AppendDescriptor;
import io.flexlog.core.protocol.CommitGroupDescriptor;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.GroupResultDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.StageAckDescriptor;
import io.flexlog.core.protocol.StageDescriptor;
import io.flexlog.replica.replication.Connection;
import io.flexlog.replica.replication.ReplicaLimits;
import io.flexlog.replica.replication.ReplicationEngine;
import io.flexlog.replica.replication.StagingHook;
import io.flexlog.replica.storage.LogStorage;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.agrona.collections.Long2ObjectHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replica side of atomic multi-color appends (DESIGN §3.7, paper §6.4 Alg. 2), on a replica of
 * the broker shard S. The protocol, the client's outcome rules and the settings are also described
 * for users in {@code docs/atomic-append.md}.
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
 *       ABORTED entry is durable). END versus ABORTED is decided by whichever this replica wrote
 *       first. All or nothing still holds: only a replica with a durable END forwards.
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
 * target replica refusing what this replica accepted (e.g. a smaller max.record.bytes there).
 *
 * <p>Threading: every method runs on the replica's event loop, except {@link #loseAnswersWhile}.
 */
public final class AtomicAppends implements StagingHook {
  private static final Logger LOG = LoggerFactory.getLogger(AtomicAppends.class);
  private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

  /** The most members one atomic append may have. */
  public static final int MAX_MEMBERS = StageDescriptor.MAX_MEMBERS;

  /** Counts members whose forward failed permanently, tagged by node and error code. */
  public static final String FORWARD_FAILURES_METRIC = "flexlog.replica.atomic.forward.failures";

  private final int nodeId;
  private final ReplicationEngine engine;
  private final LogStorage storage;
  private final ReplicaLimits limits;
  private final EventExecutor executor;
  private final ForwardTransport transport;
  private final AtomicConfig config;
  private final LongSupplier clock;
  private final MeterRegistry registry;
  private final long retryNs;
  private final long retryMaxNs;

  private final Map<GroupId, StagedGroup> groups = new HashMap<>();
  private final Map<TokenKey, MemberRef> forwarding = new HashMap<>();
  private final Long2ObjectHashMap<MemberRef> forwardingByRequest = new Long2ObjectHashMap<>();
  private final List<StagedGroup> unfinished = new ArrayList<>();

  /** Groups neither finished nor aborted (durably): their staging entries are still needed. */
  private final Set<StagedGroup> unsettled = new LinkedHashSet<>();

  /** Finished or aborted groups, oldest first, remembered until their retention ends. */
  private final ArrayDeque<StagedGroup> settled = new ArrayDeque<>();

  private final List<StagedGroup> uncommitted = new ArrayList<>();
  private final List<Long> uncommittedAddresses = new ArrayList<>();
  private List<Runnable> afterFlush = new ArrayList<>();
  private final List<Connection> touched = new ArrayList<>();
  private long stagingSn;
  private long forwardIds;
  private ScheduledFuture<?> timer;
  private volatile BooleanSupplier loseAnswers = () -> false;

  /**
   * @param clock nanoseconds for the abandon timeout and the retention ({@code System::nanoTime}
   *     outside tests); the timers themselves run on {@code executor}
   */
  public AtomicAppends(
      int nodeId,
      ReplicationEngine engine,
      LogStorage storage,
      ReplicaLimits limits,
      EventExecutor executor,
      ForwardTransport transport,
      AtomicConfig config,
      LongSupplier clock,
      MeterRegistry registry) {
    this.nodeId = nodeId;
    this.engine = engine;
    this.storage = storage;
    this.limits = limits;
    this.executor = executor;
    this.transport = transport;
    this.config = config;
    this.clock = clock;
    this.registry = registry;
    this.retryNs = config.forwardRetry().toNanos();
    this.retryMaxNs = config.forwardRetryMax().toNanos();
  }

  /** Groups this replica remembers, finished or not; for tests and metrics. */
  public int groupCount() {
    return groups.size();
  }

  /**
   * Fault injection for tests: while {@code lose} returns true, the connection of a client is
   * closed where it would get a GROUP_RESULT (or a member failure), so that answer is lost although
   * the group is finished. Any thread.
   */
  public void loseAnswersWhile(BooleanSupplier lose) {
    this.loseAnswers = lose;
  }

  // ---------------------------------------------------------------- recovery

  @Override
  public void onRecoveredEntry(
      long address, int shardId, long tokenSession, long tokenSequence, long sn) {
    ByteBuf entry = storage.payload(address);
    try {
      StagedEntryDescriptor.validate(entry);
    } catch (RuntimeException e) {
      LOG.error("replica {} skips an unreadable staging entry: {}", nodeId, e.getMessage());
      return;
    }
    stagingSn = Math.max(stagingSn, sn);
    StagedGroup group =
        group(
            StagedEntryDescriptor.groupHigh(entry),
            StagedEntryDescriptor.groupLow(entry),
            shardId,
            StagedEntryDescriptor.memberCount(entry));
    if (sn == Sn.NONE) {
      uncommitted.add(group);
      uncommittedAddresses.add(address);
    } else {
      group.noteStagingSn(sn);
    }
    switch (StagedEntryDescriptor.kind(entry)) {
      case StagedEntryDescriptor.MEMBER -> {
        int index = StagedEntryDescriptor.memberIndex(entry);
        if (group.memberAddress[index] == StagedGroup.NO_ADDRESS) {
          group.stage(
              index,
              address,
              tokenSession,
              tokenSequence,
              StagedEntryDescriptor.targetColorId(entry),
              StagedEntryDescriptor.targetShardId(entry));
        }
      }
      case StagedEntryDescriptor.END -> {
        if (!group.abortWritten) {
          group.endWritten = true;
          group.ended = true;
        }
      }
      case StagedEntryDescriptor.ABORTED -> {
        if (!group.endWritten) {
          group.abortWritten = true;
          group.aborted = true;
          group.settleSn = sn;
        }
      }
      default -> {
        group.done = true;
        group.settleSn = sn;
        for (int i = 0; i < group.memberCount; i++) {
          group.sns[i] = StagedEntryDescriptor.doneSn(entry, i);
        }
      }
    }
  }

  @Override
  public void onRecovered() {
    // After a trim of every staging entry, the next SN must still be above the trim point.
    stagingSn = Math.max(stagingSn, storage.trimPoint(STAGING_COLOR_ID));
    for (int i = 0; i < uncommittedAddresses.size(); i++) {
      storage.commit(uncommittedAddresses.get(i), ++stagingSn);
      uncommitted.get(i).noteStagingSn(stagingSn);
    }
    uncommitted.clear();
    uncommittedAddresses.clear();
    storage.flush();
    long now = clock.getAsLong();
    int resumed = 0;
    List<StagedGroup> recoveredSettled = new ArrayList<>();
    for (StagedGroup group : groups.values()) {
      group.lastStageNs = now;
      if (group.settled()) {
        group.settledNs = now;
        recoveredSettled.add(group);
        continue;
      }
      unsettled.add(group);
      if (group.ended) {
        if (!group.fullyStaged()) {
          LOG.error(
              "replica {}: group {} has an end marker but {} of {} members; not forwarded",
              nodeId,
              group.describe(),
              group.staged,
              group.memberCount);
          continue;
        }
        startForwarding(group);
        resumed++;
      }
    }
    recoveredSettled.sort((a, b) -> Long.compare(a.settleSn, b.settleSn));
    settled.addAll(recoveredSettled);
    if (!groups.isEmpty()) {
      LOG.info(
          "replica {} recovered {} atomic groups, forwarding {} again",
          nodeId,
          groups.size(),
          resumed);
    }
    transport.flush();
    armTimer();
  }

  // ---------------------------------------------------------------- client frames

  @Override
  public boolean onClientFrame(Connection channel, ByteBuf frame) {
    switch (FrameDescriptor.type(frame)) {
      case MessageType.STAGE -> onStage(channel, frame);
      case MessageType.COMMIT_GROUP -> onCommitGroup(channel, frame);
      default -> {
        return false;
      }
    }
    return true;
  }

  private void onStage(Connection channel, ByteBuf frame) {
    long requestId = FrameDescriptor.requestId(frame);
    long high = StageDescriptor.groupHigh(frame);
    long low = StageDescriptor.groupLow(frame);
    int index = StageDescriptor.memberIndex(frame);
    int count = StageDescriptor.memberCount(frame);
    int brokerShard = StageDescriptor.brokerShardId(frame);
    if (!checkStage(channel, requestId, frame, brokerShard, count)) {
      return;
    }
    StagedGroup group = groups.get(new GroupId(high, low));
    if (group != null && (group.memberCount != count || group.brokerShardId != brokerShard)) {
      writeError(
          channel,
          requestId,
          ErrorCode.INVALID_ARGUMENT,
          "group "
              + group.describe()
              + " was staged with "
              + group.memberCount
              + " members on shard "
              + group.brokerShardId);
      return;
    }
    if (group != null && group.abortWritten) {
      writeError(channel, requestId, ErrorCode.GROUP_ABORTED, aborted(group));
      return;
    }
    if (group == null) {
      group = group(high, low, brokerShard, count);
      unsettled.add(group);
      armTimer();
    }
    group.lastStageNs = clock.getAsLong();
    if (group.memberAddress[index] == StagedGroup.NO_ADDRESS && !group.settled()) {
      long address = stageMember(channel, requestId, frame, group);
      if (address == LogStorage.NO_SPACE) {
        if (group.staged == 0) {
          forget(group);
        }
        return;
      }
      group.stage(
          index,
          address,
          StageDescriptor.tokenSession(frame),
          StageDescriptor.tokenSequence(frame),
          StageDescriptor.targetColorId(frame),
          StageDescriptor.targetShardId(frame));
    }
    afterFlush.add(
        () ->
            write(
                channel,
                StageAckDescriptor.encode(channel.alloc(), requestId, high, low, index, nodeId)));
    engine.requestEndOfTurn();
  }

  /** Validates a STAGE against the topology and limits; on a refusal writes the ERROR. */
  private boolean checkStage(
      Connection channel, long requestId, ByteBuf frame, int brokerShard, int count) {
    Topology topology = engine.topology();
    Optional<Shard> broker = topology.shard(brokerShard);
    int targetColor = StageDescriptor.targetColorId(frame);
    int targetShard = StageDescriptor.targetShardId(frame);
    Optional<Shard> target = topology.shard(targetShard);
    ErrorCode code = ErrorCode.INVALID_ARGUMENT;
    String refusal = null;
    if (broker.isEmpty() || !broker.get().replicaNodeIds().contains(nodeId)) {
      code = ErrorCode.UNKNOWN_SHARD;
      refusal = "replica node " + nodeId + " does not host broker shard " + brokerShard;
    } else if (topology.color(targetColor).isEmpty()) {
      code = ErrorCode.UNKNOWN_COLOR;
      refusal = "unknown target color id " + targetColor;
    } else if (target.isEmpty()) {
      code = ErrorCode.UNKNOWN_SHARD;
      refusal = "unknown target shard " + targetShard;
    } else if (!topology.isInSubtree(target.get().colorId(), targetColor)) {
      refusal = "shard " + targetShard + " is not in the subtree of color id " + targetColor;
    } else if (count > MAX_MEMBERS) {
      refusal = "an atomic append has at most " + MAX_MEMBERS + " members, got " + count;
    } else if (StageDescriptor.payloadLength(frame) > limits.maxRecordBytes()) {
      code = ErrorCode.RECORD_TOO_LARGE;
      refusal =
          "member "
              + StageDescriptor.memberIndex(frame)
              + " of "
              + StageDescriptor.payloadLength(frame)
              + " bytes exceeds max.record.bytes="
              + limits.maxRecordBytes();
    }
    if (refusal != null) {
      writeError(channel, requestId, code, refusal);
      return false;
    }
    return true;
  }

  private long stageMember(Connection channel, long requestId, ByteBuf frame, StagedGroup group) {
    ByteBuf payload = StageDescriptor.payload(frame);
    ByteBuf header =
        StagedEntryDescriptor.encodeHeader(
            ALLOC,
            StagedEntryDescriptor.MEMBER,
            StageDescriptor.groupHigh(frame),
            StageDescriptor.groupLow(frame),
            StageDescriptor.memberIndex(frame),
            StageDescriptor.memberCount(frame),
            StageDescriptor.targetColorId(frame),
            StageDescriptor.targetShardId(frame),
            payload.readableBytes(),
            0);
    ByteBuf entry = Unpooled.wrappedBuffer(header, payload.retainedSlice());
    try {
      long address;
      try {
        address =
            storage.appendPending(
                StageDescriptor.brokerShardId(frame),
                STAGING_COLOR_ID,
                StageDescriptor.tokenSession(frame),
                StageDescriptor.tokenSequence(frame),
                entry);
      } catch (IllegalArgumentException e) {
        writeError(channel, requestId, ErrorCode.RECORD_TOO_LARGE, e.getMessage());
        return LogStorage.NO_SPACE;
      }
      if (address == LogStorage.NO_SPACE) {
        writeError(
            channel,
            requestId,
            ErrorCode.STORAGE_FULL,
            "replica " + nodeId + " has no log space left to stage a member");
        return LogStorage.NO_SPACE;
      }
      storage.commit(address, ++stagingSn);
      group.noteStagingSn(stagingSn);
      return address;
    } finally {
      entry.release();
    }
  }

  private void onCommitGroup(Connection channel, ByteBuf frame) {
    long requestId = FrameDescriptor.requestId(frame);
    long high = CommitGroupDescriptor.groupHigh(frame);
    long low = CommitGroupDescriptor.groupLow(frame);
    int count = CommitGroupDescriptor.memberCount(frame);
    StagedGroup group = groups.get(new GroupId(high, low));
    if (group == null) {
      writeError(
          channel,
          requestId,
          ErrorCode.ATOMIC_OUTCOME_UNKNOWN,
          "group "
              + StagedGroup.describe(high, low)
              + " is unknown at replica node "
              + nodeId
              + ": never staged here, or finished or aborted and forgotten after "
              + AtomicConfig.RESULT_RETENTION
              + "; it may have been placed");
      return;
    }
    if (group.memberCount != count
        || group.brokerShardId != CommitGroupDescriptor.brokerShardId(frame)) {
      writeError(
          channel,
          requestId,
          ErrorCode.INVALID_ARGUMENT,
          "group "
              + group.describe()
              + " was staged with "
              + group.memberCount
              + " members on shard "
              + group.brokerShardId
              + ", not "
              + count
              + " on shard "
              + CommitGroupDescriptor.brokerShardId(frame));
      return;
    }
    if (group.done) {
      answer(channel, requestId, group);
      flushTouched();
      return;
    }
    if (group.aborted) {
      writeError(channel, requestId, ErrorCode.GROUP_ABORTED, aborted(group));
      return;
    }
    if (!group.abortWritten && !group.fullyStaged()) {
      writeError(
          channel,
          requestId,
          ErrorCode.INVALID_ARGUMENT,
          "group "
              + group.describe()
              + " of "
              + count
              + " members is not fully staged on shard "
              + group.brokerShardId
              + " at replica node "
              + nodeId
              + " ("
              + group.staged
              + " of "
              + group.memberCount
              + ")");
      return;
    }
    group.waiters.add(channel);
    group.waiterRequestIds.add(requestId);
    if (!group.endWritten && !group.abortWritten) {
      if (!writeMarker(group, StagedEntryDescriptor.END, Unpooled.EMPTY_BUFFER)) {
        group.waiters.remove(group.waiters.size() - 1);
        group.waiterRequestIds.remove(group.waiterRequestIds.size() - 1);
        writeError(
            channel,
            requestId,
            ErrorCode.STORAGE_FULL,
            "replica " + nodeId + " has no log space for the end marker of " + group.describe());
        return;
      }
      group.endWritten = true;
      StagedGroup ending = group;
      afterFlush.add(
          () -> {
            ending.ended = true;
            startForwarding(ending);
          });
      engine.requestEndOfTurn();
    }
    // An abort that is not durable yet answers the waiters once it is (see abort).
  }

  /** Appends an END, DONE or ABORTED entry; false (logged) when the log is full. */
  private boolean writeMarker(StagedGroup group, byte kind, ByteBuf body) {
    ByteBuf header =
        StagedEntryDescriptor.encodeHeader(
            ALLOC,
            kind,
            group.groupHigh,
            group.groupLow,
            0,
            group.memberCount,
            0,
            0,
            body.readableBytes(),
            0);
    ByteBuf entry = Unpooled.wrappedBuffer(header, body.retain());
    try {
      long address =
          storage.appendPending(
              group.brokerShardId, STAGING_COLOR_ID, group.groupHigh, group.groupLow, entry);
      if (address == LogStorage.NO_SPACE) {
        LOG.error(
            "replica {} has no log space for the {} marker of group {}",
            nodeId,
            kind == StagedEntryDescriptor.END
                ? "end"
                : kind == StagedEntryDescriptor.DONE ? "done" : "aborted",
            group.describe());
        return false;
      }
      storage.commit(address, ++stagingSn);
      group.noteStagingSn(stagingSn);
      if (kind != StagedEntryDescriptor.END) {
        group.settleSn = stagingSn;
      }
      return true;
    } finally {
      entry.release();
    }
  }

  // ---------------------------------------------------------------- forwarding

  private void startForwarding(StagedGroup group) {
    if (!unfinished.contains(group)) {
      unfinished.add(group);
    }
    long now = clock.getAsLong();
    for (int i = 0; i < group.memberCount; i++) {
      if (group.sns[i] < 0 || (group.sns[i] != Sn.NONE && allAcked(group, i))) {
        continue;
      }
      if (group.forwardRequestId[i] == 0) {
        group.forwardRequestId[i] = ++forwardIds;
      }
      MemberRef ref = new MemberRef(group, i);
      forwarding.put(new TokenKey(group.tokenSession[i], group.tokenSequence[i]), ref);
      forwardingByRequest.put(group.forwardRequestId[i], ref);
      group.forwardAttempts[i] = 0;
      sendMember(group, i, now);
    }
    transport.flush();
    armTimer();
  }

  private boolean allAcked(StagedGroup group, int index) {
    Optional<Shard> shard = engine.topology().shard(group.targetShard[index]);
    return shard.isPresent()
        && group.ackedMask[index] == (1 << shard.get().replicaNodeIds().size()) - 1;
  }

  /**
   * Sends a member as an APPEND to each replica of its target shard that has not acked it, and
   * schedules the next attempt with capped exponential backoff. A target this replica's topology no
   * longer has fails the member for good.
   */
  private void sendMember(StagedGroup group, int index, long now) {
    int targetShard = group.targetShard[index];
    int targetColor = group.targetColor[index];
    Topology topology = engine.topology();
    Optional<Shard> shard = topology.shard(targetShard);
    if (topology.color(targetColor).isEmpty()) {
      failMember(
          group, index, ErrorCode.UNKNOWN_COLOR, "target color id " + targetColor + " is gone");
      return;
    }
    if (shard.isEmpty() || !topology.isInSubtree(shard.get().colorId(), targetColor)) {
      failMember(
          group,
          index,
          ErrorCode.UNKNOWN_SHARD,
          "target shard " + targetShard + " of color id " + targetColor + " is gone");
      return;
    }
    int attempt = group.forwardAttempts[index]++;
    long delay = attempt >= 20 ? retryMaxNs : Math.min(retryMaxNs, retryNs << attempt);
    group.nextSendNs[index] = now + delay;
    List<Integer> replicas = shard.get().replicaNodeIds();
    ByteBuf payload = StagedEntryDescriptor.body(storage.payload(group.memberAddress[index]));
    for (int r = 0; r < replicas.size(); r++) {
      if ((group.ackedMask[index] & (1 << r)) != 0) {
        continue;
      }
      ByteBuf header =
          AppendDescriptor.encodeHeader(
              ALLOC,
              group.forwardRequestId[index],
              group.tokenSession[index],
              group.tokenSequence[index],
              targetColor,
              targetShard,
              payload.readableBytes());
      transport.send(replicas.get(r), Unpooled.wrappedBuffer(header, payload.retainedSlice()));
    }
  }

  /**
   * A frame from a replica of a target shard: APPEND_ACK counts towards its member; ERROR is
   * classified (see the class comment): a permanent one fails the member, a transient one waits for
   * the next attempt. The caller keeps ownership of the frame.
   */
  public void onPeerFrame(ByteBuf frame) {
    byte type = FrameDescriptor.type(frame);
    if (type == MessageType.ERROR) {
      onForwardError(frame);
      return;
    }
    if (type != MessageType.APPEND_ACK) {
      return;
    }
    MemberRef ref =
        forwarding.get(
            new TokenKey(
                AppendAckDescriptor.tokenSession(frame), AppendAckDescriptor.tokenSequence(frame)));
    if (ref == null) {
      return;
    }
    StagedGroup group = ref.group();
    int index = ref.index();
    Optional<Shard> shard = engine.topology().shard(group.targetShard[index]);
    int replica =
        shard.isEmpty()
            ? -1
            : shard.get().replicaNodeIds().indexOf(AppendAckDescriptor.replicaNodeId(frame));
    if (replica < 0) {
      return;
    }
    long sn = AppendAckDescriptor.sn(frame);
    if (group.sns[index] != Sn.NONE && group.sns[index] != sn) {
      LOG.error(
          "replica {}: member {} of group {} acknowledged at SNs {} and {}",
          nodeId,
          index,
          group.describe(),
          group.sns[index],
          sn);
      return;
    }
    group.sns[index] = sn;
    group.ackedMask[index] |= 1 << replica;
    if (group.ackedMask[index] == (1 << shard.get().replicaNodeIds().size()) - 1) {
      memberResolved(group, index);
    }
  }

  private void onForwardError(ByteBuf frame) {
    MemberRef ref = forwardingByRequest.get(FrameDescriptor.requestId(frame));
    ErrorCode code = ErrorDescriptor.code(frame);
    String message = ErrorDescriptor.message(frame);
    if (ref == null) {
      return;
    }
    StagedGroup group = ref.group();
    int index = ref.index();
    if (isPermanent(code, group, index)) {
      failMember(group, index, code, message);
      transport.flush();
    } else if (group.forwardAttempts[index] <= 1) {
      LOG.warn(
          "replica {}: forwarding member {} of group {} failed ({}: {}); retrying",
          nodeId,
          index,
          group.describe(),
          code,
          message);
    } else {
      LOG.debug(
          "replica {}: forwarding member {} of group {} failed again ({}: {})",
          nodeId,
          index,
          group.describe(),
          code,
          message);
    }
  }

  /**
   * Whether retrying cannot help: the target refused the record itself, or it does not know a color
   * or shard that this replica's topology does not have either (a topology change after the STAGE).
   * An unknown color or shard this replica still knows is a target that lags behind.
   */
  private boolean isPermanent(ErrorCode code, StagedGroup group, int index) {
    return switch (code) {
      case RECORD_TOO_LARGE, INVALID_ARGUMENT, PROTOCOL -> true;
      case UNKNOWN_COLOR, UNKNOWN_SHARD -> {
        Topology topology = engine.topology();
        Optional<Shard> shard = topology.shard(group.targetShard[index]);
        yield topology.color(group.targetColor[index]).isEmpty()
            || shard.isEmpty()
            || !topology.isInSubtree(shard.get().colorId(), group.targetColor[index]);
      }
      default -> false;
    };
  }

  private void failMember(StagedGroup group, int index, ErrorCode code, String message) {
    if (group.sns[index] < 0) {
      return;
    }
    LOG.error(
        "replica {}: member {} of atomic group {} (color id {}, shard {}) cannot be forwarded,"
            + " giving up on it: {}: {}",
        nodeId,
        index,
        group.describe(),
        group.targetColor[index],
        group.targetShard[index],
        code,
        message);
    registry
        .counter(FORWARD_FAILURES_METRIC, "node", Integer.toString(nodeId), "code", code.name())
        .increment();
    group.sns[index] = -code.code();
    memberResolved(group, index);
  }

  private void memberResolved(StagedGroup group, int index) {
    forwarding.remove(new TokenKey(group.tokenSession[index], group.tokenSequence[index]));
    forwardingByRequest.remove(group.forwardRequestId[index]);
    group.forwarded++;
    if (group.forwarded == group.memberCount) {
      finish(group);
    }
  }

  /** Every member is committed (or failed for good): persist DONE, then answer the clients. */
  private void finish(StagedGroup group) {
    unfinished.remove(group);
    ByteBuf body = ALLOC.buffer(group.memberCount * 8);
    try {
      for (long sn : group.sns) {
        body.writeLong(sn);
      }
      writeMarker(group, StagedEntryDescriptor.DONE, body);
    } finally {
      body.release();
    }
    afterFlush.add(
        () -> {
          group.done = true;
          settle(group);
          for (int i = 0; i < group.waiters.size(); i++) {
            answer(group.waiters.get(i), group.waiterRequestIds.get(i), group);
          }
          group.waiters.clear();
          group.waiterRequestIds.clear();
        });
    engine.requestEndOfTurn();
  }

  // ---------------------------------------------------------------- housekeeping

  private void armTimer() {
    if (timer == null && !groups.isEmpty()) {
      timer = executor.schedule(this::tick, retryNs, TimeUnit.NANOSECONDS);
    }
  }

  /**
   * Runs every {@link AtomicConfig#forwardRetry()} while any group is known: re-sends members whose
   * backoff elapsed, aborts abandoned groups, forgets settled groups past their retention and
   * advances the staging color's trim point.
   */
  private void tick() {
    timer = null;
    long now = clock.getAsLong();
    for (int g = 0; g < unfinished.size(); g++) {
      StagedGroup group = unfinished.get(g);
      for (int i = 0; i < group.memberCount; i++) {
        if (group.sns[i] >= 0
            && now - group.nextSendNs[i] >= 0
            && forwarding.containsKey(
                new TokenKey(group.tokenSession[i], group.tokenSequence[i]))) {
          sendMember(group, i, now);
        }
      }
    }
    long abandonNs = config.abandonAfter().toNanos();
    boolean wrote = false;
    for (StagedGroup group : unsettled) {
      if (!group.endWritten && !group.abortWritten && now - group.lastStageNs >= abandonNs) {
        wrote |= abort(group);
      }
    }
    if (wrote) {
      engine.requestEndOfTurn();
    }
    forgetExpired(now);
    trimStaging();
    transport.flush();
    armTimer();
  }

  /** Writes the ABORTED marker; the group counts as aborted once it is durable. */
  private boolean abort(StagedGroup group) {
    if (!writeMarker(group, StagedEntryDescriptor.ABORTED, Unpooled.EMPTY_BUFFER)) {
      return false;
    }
    group.abortWritten = true;
    LOG.info(
        "replica {} aborts atomic group {}: {} of {} members staged, no commit within {} ms",
        nodeId,
        group.describe(),
        group.staged,
        group.memberCount,
        config.abandonAfter().toMillis());
    afterFlush.add(
        () -> {
          group.aborted = true;
          settle(group);
          for (int i = 0; i < group.waiters.size(); i++) {
            Connection channel = group.waiters.get(i);
            writeError(
                channel, group.waiterRequestIds.get(i), ErrorCode.GROUP_ABORTED, aborted(group));
          }
          group.waiters.clear();
          group.waiterRequestIds.clear();
        });
    return true;
  }

  private void settle(StagedGroup group) {
    group.settledNs = clock.getAsLong();
    unsettled.remove(group);
    settled.add(group);
    forgetExpired(group.settledNs);
  }

  private void forgetExpired(long now) {
    long retentionNs = config.resultRetention().toNanos();
    while (!settled.isEmpty()
        && (settled.size() > config.resultRetentionCount()
            || now - settled.peekFirst().settledNs >= retentionNs)) {
      forget(settled.pollFirst());
    }
  }

  private void forget(StagedGroup group) {
    groups.remove(new GroupId(group.groupHigh, group.groupLow));
    unsettled.remove(group);
  }

  /**
   * Raises the staging color's trim point to just below the oldest staging entry still needed: the
   * first entry of a group that is neither finished nor aborted, or the DONE / ABORTED entry of a
   * remembered group (so that its answer survives a restart within its retention). Every entry
   * below belongs to a forgotten group, or is a member or END of a remembered one.
   */
  private void trimStaging() {
    long point = stagingSn;
    for (StagedGroup group : unsettled) {
      point = Math.min(point, group.firstStagingSn - 1);
    }
    if (!settled.isEmpty() && settled.peekFirst().settleSn > 0) {
      point = Math.min(point, settled.peekFirst().settleSn - 1);
    }
    if (point > storage.trimPoint(STAGING_COLOR_ID)) {
      storage.trim(STAGING_COLOR_ID, point);
    }
  }

  /** The staging color's trim point; for tests. */
  public long stagingTrimPoint() {
    return storage.trimPoint(STAGING_COLOR_ID);
  }

  // ---------------------------------------------------------------- end of turn

  @Override
  public void onFlushed() {
    if (!afterFlush.isEmpty()) {
      List<Runnable> actions = afterFlush;
      afterFlush = new ArrayList<>();
      actions.forEach(Runnable::run);
      transport.flush();
    }
    flushTouched();
  }

  private void flushTouched() {
    for (int i = 0; i < touched.size(); i++) {
      touched.get(i).flush();
    }
    touched.clear();
  }

  /** Stops the timer; the node closes the transport. */
  public void close() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  // ---------------------------------------------------------------- helpers

  private StagedGroup group(long high, long low, int brokerShard, int count) {
    return groups.computeIfAbsent(
        new GroupId(high, low), id -> new StagedGroup(high, low, brokerShard, count));
  }

  /** The answer to a finished group: its SNs, or the members that failed for good. */
  private void answer(Connection channel, long requestId, StagedGroup group) {
    if (loseAnswers.getAsBoolean()) {
      LOG.warn(
          "replica {} loses the answer for group {} (fault injection)", nodeId, group.describe());
      channel.close();
      return;
    }
    if (!group.anyMemberFailed()) {
      write(
          channel,
          GroupResultDescriptor.encode(
              channel.alloc(), requestId, group.groupHigh, group.groupLow, nodeId, group.sns));
      return;
    }
    StringBuilder message =
        new StringBuilder("atomic group ").append(group.describe()).append(" was committed, but");
    StringBuilder placed = new StringBuilder();
    for (int i = 0; i < group.memberCount; i++) {
      if (group.sns[i] < 0) {
        message
            .append(" member ")
            .append(i)
            .append(" (color id ")
            .append(group.targetColor[i])
            .append(", shard ")
            .append(group.targetShard[i])
            .append(") failed with ")
            .append(ErrorCode.of((int) -group.sns[i]))
            .append(';');
      } else {
        placed.append(placed.length() == 0 ? "" : ", ").append(i).append('@').append(group.sns[i]);
      }
    }
    message.append(" the other members were placed (member@SN): [").append(placed).append(']');
    write(
        channel,
        ErrorDescriptor.encode(
            channel.alloc(), requestId, ErrorCode.ATOMIC_MEMBER_FAILED, message.toString()));
  }

  private String aborted(StagedGroup group) {
    return "atomic group "
        + group.describe()
        + " was aborted by replica node "
        + nodeId
        + " (no commit within "
        + AtomicConfig.ABANDON_AFTER
        + "="
        + config.abandonAfter().toMillis()
        + " ms of its last stage); this replica never places it";
  }

  private void write(Connection channel, ByteBuf frame) {
    channel.write(frame);
    if (!touched.contains(channel)) {
      touched.add(channel);
    }
  }

  private void writeError(Connection channel, long requestId, ErrorCode code, String message) {
    channel.write(ErrorDescriptor.encode(channel.alloc(), requestId, code, message));
    channel.flush();
  }
}
