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
import io.flexlog.replica.replication.ReplicaLimits;
import io.flexlog.replica.replication.ReplicationEngine;
import io.flexlog.replica.replication.StagingHook;
import io.flexlog.replica.storage.LogStorage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replica side of atomic multi-color appends (DESIGN §3.7, paper §6.4 Alg. 2), on a replica of
 * the broker shard S.
 *
 * <h2>Protocol</h2>
 *
 * <ol>
 *   <li><b>Stage.</b> The client gives every member its own token (the one it will carry in its
 *       target color), picks the member's target shard from that token, and sends each member as a
 *       STAGE frame to every replica of S. A replica appends it to its log as an entry of the
 *       reserved staging color ({@link StagingHook#STAGING_COLOR_ID}, layout {@link
 *       StagedEntryDescriptor}), commits it at once with a local SN of the staging color (so it
 *       never blocks the log as a pending entry), and answers STAGE_ACK after the flush.
 *   <li><b>Commit.</b> Once every replica of S acknowledged every member, the client sends
 *       COMMIT_GROUP to every replica of S. A replica holding every member appends an END entry;
 *       once it is durable the group is bound to appear.
 *   <li><b>Forward.</b> A replica with a durable END acts as a client: it sends each member as an
 *       APPEND with the member's original token to every replica of the member's target shard, and
 *       re-sends until every replica acknowledged one SN. The target replicas and sequencers
 *       deduplicate by token, so several replicas of S forwarding the same group, and forwarding
 *       again after a restart, place each member exactly once. Then the replica appends a DONE
 *       entry holding the SNs and answers GROUP_RESULT to the clients waiting.
 *   <li><b>Recover.</b> On restart, a group with a durable END and no DONE is forwarded again; a
 *       group with DONE is answered from its entry; a group without END (the client crashed before
 *       committing) is never forwarded.
 * </ol>
 *
 * <p>All or nothing: a member reaches its color only through a forwarder, a forwarder exists only
 * after an END, and an END is written only by a replica holding every member. Since the client
 * commits only after every replica of S holds every member, any replica that got the COMMIT_GROUP
 * can finish alone, even if the client and every other replica fail.
 *
 * <p>Not built yet: reclaiming the staging entries of finished or abandoned groups (they are
 * committed, so the trim and tiering of the staging color can reclaim them), and forgetting
 * finished groups in memory.
 *
 * <p>Threading: every method runs on the replica's event loop.
 */
public final class AtomicAppends implements StagingHook {
  private static final Logger LOG = LoggerFactory.getLogger(AtomicAppends.class);
  private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

  /** The most members one atomic append may have. */
  public static final int MAX_MEMBERS = StageDescriptor.MAX_MEMBERS;

  public static final Duration DEFAULT_RETRY = Duration.ofMillis(200);

  private final int nodeId;
  private final ReplicationEngine engine;
  private final LogStorage storage;
  private final ReplicaLimits limits;
  private final EventExecutor executor;
  private final ForwardTransport transport;
  private final long retryNs;

  private final Map<GroupId, StagedGroup> groups = new HashMap<>();
  private final Map<TokenKey, MemberRef> forwarding = new HashMap<>();
  private final List<StagedGroup> unfinished = new ArrayList<>();
  private final List<Long> uncommitted = new ArrayList<>();
  private List<Runnable> afterFlush = new ArrayList<>();
  private final List<Channel> touched = new ArrayList<>();
  private long stagingSn;
  private long forwardIds;
  private ScheduledFuture<?> retryTimer;

  public AtomicAppends(
      int nodeId,
      ReplicationEngine engine,
      LogStorage storage,
      ReplicaLimits limits,
      EventExecutor executor,
      ForwardTransport transport,
      Duration retry) {
    this.nodeId = nodeId;
    this.engine = engine;
    this.storage = storage;
    this.limits = limits;
    this.executor = executor;
    this.transport = transport;
    this.retryNs = retry.toNanos();
  }

  /** Groups this replica knows, finished or not; for tests and metrics. */
  public int groupCount() {
    return groups.size();
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
    if (sn == Sn.NONE) {
      uncommitted.add(address);
    }
    StagedGroup group =
        group(
            StagedEntryDescriptor.groupHigh(entry),
            StagedEntryDescriptor.groupLow(entry),
            shardId,
            StagedEntryDescriptor.memberCount(entry));
    switch (StagedEntryDescriptor.kind(entry)) {
      case StagedEntryDescriptor.MEMBER -> {
        int index = StagedEntryDescriptor.memberIndex(entry);
        if (group.memberAddress[index] == StagedGroup.NO_ADDRESS) {
          group.stage(index, address, tokenSession, tokenSequence);
        }
      }
      case StagedEntryDescriptor.END -> {
        group.endWritten = true;
        group.ended = true;
      }
      default -> {
        group.done = true;
        for (int i = 0; i < group.memberCount; i++) {
          group.sns[i] = StagedEntryDescriptor.doneSn(entry, i);
        }
      }
    }
  }

  @Override
  public void onRecovered() {
    for (long address : uncommitted) {
      storage.commit(address, ++stagingSn);
    }
    uncommitted.clear();
    storage.flush();
    int resumed = 0;
    for (StagedGroup group : groups.values()) {
      if (group.ended && !group.done) {
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
    if (!groups.isEmpty()) {
      LOG.info(
          "replica {} recovered {} atomic groups, forwarding {} again",
          nodeId,
          groups.size(),
          resumed);
    }
    transport.flush();
  }

  // ---------------------------------------------------------------- client frames

  @Override
  public boolean onClientFrame(Channel channel, ByteBuf frame) {
    switch (FrameDescriptor.type(frame)) {
      case MessageType.STAGE -> onStage(channel, frame);
      case MessageType.COMMIT_GROUP -> onCommitGroup(channel, frame);
      default -> {
        return false;
      }
    }
    return true;
  }

  private void onStage(Channel channel, ByteBuf frame) {
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
    if (group == null) {
      group = group(high, low, brokerShard, count);
    }
    if (group.memberAddress[index] == StagedGroup.NO_ADDRESS) {
      long address = stageMember(channel, requestId, frame);
      if (address == LogStorage.NO_SPACE) {
        return;
      }
      group.stage(
          index,
          address,
          StageDescriptor.tokenSession(frame),
          StageDescriptor.tokenSequence(frame));
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
      Channel channel, long requestId, ByteBuf frame, int brokerShard, int count) {
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

  private long stageMember(Channel channel, long requestId, ByteBuf frame) {
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
      return address;
    } finally {
      entry.release();
    }
  }

  private void onCommitGroup(Channel channel, ByteBuf frame) {
    long requestId = FrameDescriptor.requestId(frame);
    long high = CommitGroupDescriptor.groupHigh(frame);
    long low = CommitGroupDescriptor.groupLow(frame);
    int count = CommitGroupDescriptor.memberCount(frame);
    StagedGroup group = groups.get(new GroupId(high, low));
    if (group == null
        || group.memberCount != count
        || group.brokerShardId != CommitGroupDescriptor.brokerShardId(frame)
        || !group.fullyStaged()) {
      writeError(
          channel,
          requestId,
          ErrorCode.INVALID_ARGUMENT,
          "group "
              + StagedGroup.describe(high, low)
              + " of "
              + count
              + " members is not fully staged on shard "
              + CommitGroupDescriptor.brokerShardId(frame)
              + " at replica node "
              + nodeId
              + (group == null ? "" : " (" + group.staged + " of " + group.memberCount + ")"));
      return;
    }
    if (group.done) {
      write(channel, result(channel.alloc(), requestId, group));
      channel.flush();
      return;
    }
    group.waiters.add(channel);
    group.waiterRequestIds.add(requestId);
    if (!group.endWritten) {
      writeMarker(group, StagedEntryDescriptor.END, Unpooled.EMPTY_BUFFER);
      group.endWritten = true;
      StagedGroup ending = group;
      afterFlush.add(
          () -> {
            ending.ended = true;
            startForwarding(ending);
          });
      engine.requestEndOfTurn();
    }
  }

  /** Appends an END or DONE entry; on a full log, logs it and carries on (see callers). */
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
            kind == StagedEntryDescriptor.END ? "end" : "done",
            group.describe());
        return false;
      }
      storage.commit(address, ++stagingSn);
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
    for (int i = 0; i < group.memberCount; i++) {
      forwarding.put(
          new TokenKey(group.tokenSession[i], group.tokenSequence[i]), new MemberRef(group, i));
      sendMember(group, i);
    }
    transport.flush();
    armRetry();
  }

  /** Sends a member as an APPEND to each replica of its target shard that has not acked it. */
  private void sendMember(StagedGroup group, int index) {
    ByteBuf entry = storage.payload(group.memberAddress[index]);
    int targetShard = StagedEntryDescriptor.targetShardId(entry);
    int targetColor = StagedEntryDescriptor.targetColorId(entry);
    Optional<Shard> shard = engine.topology().shard(targetShard);
    if (shard.isEmpty()) {
      LOG.warn(
          "replica {}: target shard {} of group {} is unknown; retrying",
          nodeId,
          targetShard,
          group.describe());
      return;
    }
    List<Integer> replicas = shard.get().replicaNodeIds();
    ByteBuf payload = StagedEntryDescriptor.body(entry);
    for (int r = 0; r < replicas.size(); r++) {
      if ((group.ackedMask[index] & (1 << r)) != 0) {
        continue;
      }
      ByteBuf header =
          AppendDescriptor.encodeHeader(
              ALLOC,
              ++forwardIds,
              group.tokenSession[index],
              group.tokenSequence[index],
              targetColor,
              targetShard,
              payload.readableBytes());
      transport.send(replicas.get(r), Unpooled.wrappedBuffer(header, payload.retainedSlice()));
    }
  }

  /**
   * A frame from a replica of a target shard: APPEND_ACK counts towards its member; ERROR is logged
   * and the retry timer sends again. The caller keeps ownership of the frame.
   */
  public void onPeerFrame(ByteBuf frame) {
    byte type = FrameDescriptor.type(frame);
    if (type == MessageType.ERROR) {
      LOG.warn(
          "replica {}: forwarding an atomic member failed ({}: {}); retrying",
          nodeId,
          ErrorDescriptor.code(frame),
          ErrorDescriptor.message(frame));
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
    int targetShard =
        StagedEntryDescriptor.targetShardId(storage.payload(group.memberAddress[index]));
    Optional<Shard> shard = engine.topology().shard(targetShard);
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
      forwarding.remove(new TokenKey(group.tokenSession[index], group.tokenSequence[index]));
      group.forwarded++;
      if (group.forwarded == group.memberCount) {
        finish(group);
      }
    }
  }

  /** Every member is committed: persist DONE, then answer the waiting clients. */
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
          for (int i = 0; i < group.waiters.size(); i++) {
            Channel channel = group.waiters.get(i);
            write(channel, result(channel.alloc(), group.waiterRequestIds.get(i), group));
          }
          group.waiters.clear();
          group.waiterRequestIds.clear();
        });
    engine.requestEndOfTurn();
  }

  private void armRetry() {
    if (retryTimer == null && !unfinished.isEmpty()) {
      retryTimer = executor.schedule(this::retry, retryNs, TimeUnit.NANOSECONDS);
    }
  }

  private void retry() {
    retryTimer = null;
    for (StagedGroup group : unfinished) {
      for (int i = 0; i < group.memberCount; i++) {
        if (forwarding.containsKey(new TokenKey(group.tokenSession[i], group.tokenSequence[i]))) {
          sendMember(group, i);
        }
      }
    }
    transport.flush();
    armRetry();
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
    for (int i = 0; i < touched.size(); i++) {
      touched.get(i).flush();
    }
    touched.clear();
  }

  /** Stops the retry timer; the node closes the transport. */
  public void close() {
    if (retryTimer != null) {
      retryTimer.cancel(false);
      retryTimer = null;
    }
  }

  // ---------------------------------------------------------------- helpers

  private StagedGroup group(long high, long low, int brokerShard, int count) {
    return groups.computeIfAbsent(
        new GroupId(high, low), id -> new StagedGroup(high, low, brokerShard, count));
  }

  private ByteBuf result(ByteBufAllocator alloc, long requestId, StagedGroup group) {
    return GroupResultDescriptor.encode(
        alloc, requestId, group.groupHigh, group.groupLow, nodeId, group.sns);
  }

  private void write(Channel channel, ByteBuf frame) {
    channel.write(frame, channel.voidPromise());
    if (!touched.contains(channel)) {
      touched.add(channel);
    }
  }

  private void writeError(Channel channel, long requestId, ErrorCode code, String message) {
    channel.writeAndFlush(
        ErrorDescriptor.encode(channel.alloc(), requestId, code, message), channel.voidPromise());
  }
}
