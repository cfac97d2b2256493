package io.flexlog.replica.replication;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.AppendAckDescriptor;
import io.flexlog.core.protocol.AppendDescriptor;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.MetadataDescriptor;
import io.flexlog.core.protocol.OrderResponseDescriptor;
import io.flexlog.core.protocol.ReadDescriptor;
import io.flexlog.core.protocol.ReadResponseDescriptor;
import io.flexlog.core.protocol.SubscribeCreditDescriptor;
import io.flexlog.core.protocol.SubscribeDescriptor;
import io.flexlog.core.protocol.TokenSyncDescriptor;
import io.flexlog.core.protocol.TokenSyncResponseDescriptor;
import io.flexlog.core.protocol.TopologyMarkDescriptor;
import io.flexlog.core.protocol.TrimDescriptor;
import io.flexlog.core.protocol.TrimResponseDescriptor;
import io.flexlog.core.protocol.WatermarkDescriptor;
import io.flexlog.core.util.TokenLongMap;
import io.flexlog.replica.index.SnIndex;
import io.flexlog.replica.storage.LogStorage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.agrona.collections.Int2IntHashMap;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replication protocol of one replica node (DESIGN §3.1–§3.3, paper Alg. 1): stores appends as
 * pending, asks the sequencer for SNs, commits, acknowledges, and answers reads with the
 * hold-or-decide rule of the watermarks.
 *
 * <p>Batching is natural: everything that arrives in one event-loop turn is written to the log,
 * then {@link #endOfTurn()} flushes the log once, sends one ORDER_REQUEST per (shard, color),
 * publishes the commits, answers reads that became decidable and flushes each touched connection
 * once.
 *
 * <p>Threading: every method runs on the one event-loop thread given as {@code executor}; the
 * network adapters ({@code ReplicaServerHandler}, {@code SequencerLink}) call in from it.
 */
public final class ReplicationEngine {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicationEngine.class);

  private final int nodeId;
  private Topology topology;
  private final LogStorage storage;
  private final ReplicaLimits limits;
  private final SequencerGateway sequencers;
  private final EventExecutor executor;

  private final Int2ObjectHashMap<Shard> hostedShards = new Int2ObjectHashMap<>();
  private final Long2ObjectHashMap<ColorLog> logs = new Long2ObjectHashMap<>();
  private final List<ColorLog> logList = new ArrayList<>();
  private final PendingAppends pending = new PendingAppends();
  private final TokenLongMap committedTokens;
  private final TokenLongMap earlyAssignments = new TokenLongMap(64, Sn.NONE);

  private final Long2ObjectHashMap<OrderRequestBatch> batches = new Long2ObjectHashMap<>();
  private final List<OrderRequestBatch> activeBatches = new ArrayList<>();
  private int[] committedSlots = new int[64];
  private int committedCount;
  private final List<Channel> touched = new ArrayList<>();
  private final List<HeldRead> held = new ArrayList<>();
  private boolean endOfTurnScheduled;
  private boolean inEndOfTurn;
  private final Runnable endOfTurnTask = this::endOfTurn;

  private final Counter appends;
  private final Counter duplicateAppends;
  private final DistributionSummary commitBatch;
  private final Counter readsFound;
  private final Counter readsAbsent;
  private final Counter readsRetry;
  private final Counter readsTrimmed;
  private final Counter trims;
  private final SubscriptionService subscriptions;
  private StagingHook staging = StagingHook.NONE;

  /** Incarnation of each welcomed sequencer link (0: down or not welcomed yet). */
  private final Int2IntHashMap linkIncarnations = new Int2IntHashMap(0);

  private final TokenSync tokenSync;
  private final Runnable heartbeatTask = this::heartbeat;
  private io.netty.util.concurrent.ScheduledFuture<?> heartbeats;

  public ReplicationEngine(
      int nodeId,
      Topology topology,
      LogStorage storage,
      ReplicaLimits limits,
      SequencerGateway sequencers,
      EventExecutor executor,
      MeterRegistry registry) {
    this.nodeId = nodeId;
    this.topology = topology;
    this.storage = storage;
    this.limits = limits;
    this.sequencers = sequencers;
    this.executor = executor;
    this.committedTokens = new TokenLongMap(1024, Sn.NONE, limits.dedupWindow());
    this.subscriptions = new SubscriptionService(nodeId, storage, this::touch);
    this.tokenSync = new TokenSync(new SyncHost(), executor, null);
    for (Shard shard : topology.shardsOnReplica(nodeId)) {
      hostedShards.put(shard.id(), shard);
    }
    String node = Integer.toString(nodeId);
    appends = registry.counter("flexlog.replica.appends", "node", node);
    duplicateAppends = registry.counter("flexlog.replica.appends.duplicate", "node", node);
    commitBatch =
        DistributionSummary.builder("flexlog.replica.commit.batch")
            .tag("node", node)
            .register(registry);
    readsFound = registry.counter("flexlog.replica.reads", "node", node, "result", "found");
    readsAbsent = registry.counter("flexlog.replica.reads", "node", node, "result", "absent");
    readsRetry = registry.counter("flexlog.replica.reads", "node", node, "result", "retry");
    readsTrimmed = registry.counter("flexlog.replica.reads", "node", node, "result", "trimmed");
    trims = registry.counter("flexlog.replica.trims", "node", node);
    Gauge.builder("flexlog.replica.pending", pending, PendingAppends::size)
        .tag("node", node)
        .register(registry);
    Gauge.builder("flexlog.replica.subscriptions", subscriptions, SubscriptionService::openCount)
        .tag("node", node)
        .register(registry);
    FunctionCounter.builder(
            "flexlog.replica.subscription.records", subscriptions, SubscriptionService::recordsSent)
        .tag("node", node)
        .register(registry);
    FunctionCounter.builder(
            "flexlog.replica.subscription.heartbeats",
            subscriptions,
            SubscriptionService::heartbeatsSent)
        .tag("node", node)
        .description("SUBSCRIBE_PROGRESS heartbeats sent on idle subscriptions")
        .register(registry);
    FunctionCounter.builder("flexlog.replica.sync.rounds", tokenSync, TokenSync::roundsStarted)
        .tag("node", node)
        .description("TOKEN_SYNC rounds started after a sequencer link came up")
        .register(registry);
    FunctionCounter.builder("flexlog.replica.sync.adopted", tokenSync, TokenSync::adopted)
        .tag("node", node)
        .description("pending tokens given the SN another replica of the shard already had")
        .register(registry);
  }

  /**
   * Installs the atomic-append component (DESIGN §3.7). Call before {@link #recover()}, so that
   * recovery hands it the staging entries.
   */
  /**
   * Lets the engine reach the other replicas of its shards, for the token sync of DESIGN §3.8.
   * Without peers (tests of a single replica), pending tokens are re-requested at once when a
   * sequencer link comes up.
   */
  public void attachPeers(PeerGateway peers) {
    tokenSync.peers(peers);
  }

  public void attachStaging(StagingHook hook) {
    this.staging = hook;
  }

  /** Asks for an end of turn: a log flush, then {@link StagingHook#onFlushed()}. */
  public void requestEndOfTurn() {
    scheduleEndOfTurn();
  }

  /** The latest topology applied (see {@link #updateTopology}). */
  public Topology topology() {
    return topology;
  }

  /**
   * Applies a newer topology: from now on requests are checked against it, METADATA_RESPONSE serves
   * it, and the shards it newly places on this node are hosted (their logs start empty). Shards are
   * never removed. A topology whose version is not larger than the current one is ignored.
   *
   * @return the ids of the newly hosted shards, sorted
   */
  public int[] updateTopology(Topology next) {
    if (next.version() <= topology.version()) {
      return new int[0];
    }
    topology = next;
    List<Integer> added = new ArrayList<>();
    for (Shard shard : next.shardsOnReplica(nodeId)) {
      if (!hostedShards.containsKey(shard.id())) {
        hostedShards.put(shard.id(), shard);
        added.add(shard.id());
      }
    }
    return added.stream().mapToInt(Integer::intValue).sorted().toArray();
  }

  /** The shards this node hosts, sorted by id. */
  public int[] hostedShardIds() {
    return hostedShards.keySet().stream().mapToInt(Integer::intValue).sorted().toArray();
  }

  /**
   * Rebuilds the index from the log: committed entries become readable, pending ones wait for their
   * SN (re-requested when the sequencer link comes up). Call before serving.
   */
  public void recover() {
    int[] counts = new int[2];
    storage.recover(
        (address, shardId, colorId, session, sequence, sn, length) -> {
          if (colorId == StagingHook.STAGING_COLOR_ID) {
            staging.onRecoveredEntry(address, shardId, session, sequence, sn);
            return;
          }
          if (!hostedShards.containsKey(shardId)) {
            LOG.warn(
                "log holds an entry of shard {} which node {} no longer hosts", shardId, nodeId);
            return;
          }
          if (sn != Sn.NONE) {
            log(shardId, colorId).index.add(sn, address);
            committedTokens.put(session, sequence, sn);
            counts[0]++;
          } else {
            pending.add(session, sequence, address, shardId, colorId);
            counts[1]++;
          }
        });
    staging.onRecovered();
    LOG.info(
        "replica {} recovered {} committed and {} pending entries ({} engine, {} durability)",
        nodeId,
        counts[0],
        counts[1],
        storage.engineName(),
        storage.durability().configName());
  }

  // ---------------------------------------------------------------- client requests

  public void onAppend(Channel channel, ByteBuf frame) {
    long requestId = FrameDescriptor.requestId(frame);
    long session = AppendDescriptor.tokenSession(frame);
    long sequence = AppendDescriptor.tokenSequence(frame);
    int colorId = AppendDescriptor.colorId(frame);
    int shardId = AppendDescriptor.shardId(frame);
    if (!checkAppend(channel, requestId, shardId, colorId, AppendDescriptor.payloadLength(frame))) {
      return;
    }
    appends.increment();
    long committedSn = committedTokens.get(session, sequence);
    if (committedSn != Sn.NONE) {
      duplicateAppends.increment();
      writeAck(channel, requestId, session, sequence, committedSn, colorId);
      return;
    }
    int slot = pending.find(session, sequence);
    if (slot != PendingAppends.NONE) {
      duplicateAppends.increment();
      pending.setWaiter(slot, channel, requestId);
      return;
    }
    long address =
        storage.appendPending(shardId, colorId, session, sequence, AppendDescriptor.payload(frame));
    if (address == LogStorage.NO_SPACE) {
      writeError(
          channel,
          requestId,
          ErrorCode.STORAGE_FULL,
          "replica " + nodeId + " has no log space left (" + storage.capacityBytes() + " bytes)");
      return;
    }
    slot = pending.add(session, sequence, address, shardId, colorId);
    pending.setWaiter(slot, channel, requestId);
    long early = earlyAssignments.remove(session, sequence);
    if (early != Sn.NONE) {
      commit(slot, early);
    } else {
      batch(shardId, colorId).add(session, sequence);
    }
    scheduleEndOfTurn();
  }

  private boolean checkAppend(
      Channel channel, long requestId, int shardId, int colorId, int length) {
    Shard shard = hostedShards.get(shardId);
    if (topology.color(colorId).isEmpty()) {
      writeError(channel, requestId, ErrorCode.UNKNOWN_COLOR, "unknown color id " + colorId);
      return false;
    }
    if (shard == null) {
      writeError(
          channel,
          requestId,
          ErrorCode.UNKNOWN_SHARD,
          "replica node " + nodeId + " does not host shard " + shardId);
      return false;
    }
    if (!topology.isInSubtree(shard.colorId(), colorId)) {
      writeError(
          channel,
          requestId,
          ErrorCode.INVALID_ARGUMENT,
          "shard " + shardId + " is not in the subtree of color id " + colorId);
      return false;
    }
    if (length > limits.maxRecordBytes()) {
      writeError(
          channel,
          requestId,
          ErrorCode.RECORD_TOO_LARGE,
          "record of " + length + " bytes exceeds max.record.bytes=" + limits.maxRecordBytes());
      return false;
    }
    return true;
  }

  /** STAGE or COMMIT_GROUP: handed to the atomic-append component. */
  public void onAtomicFrame(Channel channel, ByteBuf frame) {
    if (!staging.onClientFrame(ChannelConnection.of(channel), frame)) {
      writeError(
          channel,
          FrameDescriptor.requestId(frame),
          ErrorCode.INVALID_ARGUMENT,
          "replica node " + nodeId + " does not serve atomic appends");
    }
  }

  public void onRead(Channel channel, ByteBuf frame) {
    long requestId = FrameDescriptor.requestId(frame);
    int colorId = ReadDescriptor.colorId(frame);
    long sn = ReadDescriptor.sn(frame);
    if (!tryAnswerRead(channel, requestId, colorId, sn, false)) {
      HeldRead read = new HeldRead(channel, requestId, colorId, sn);
      held.add(read);
      read.timeout =
          executor.schedule(() -> expire(read), limits.readHold().toNanos(), TimeUnit.NANOSECONDS);
    }
  }

  /**
   * TRIM (DESIGN §3.5): records the color's trim point durably and answers TRIM_RESPONSE with the
   * new trim point and this replica's tail of the color. Refuses an unknown color, a color with no
   * shard on this node, and an SN beyond the tail: the largest SN of the color this replica knows
   * to be assigned, over its shards in the color's subtree (committed here, or covered by {@code
   * committedThrough}).
   */
  public void onTrim(Channel channel, ByteBuf frame) {
    long requestId = FrameDescriptor.requestId(frame);
    int colorId = TrimDescriptor.colorId(frame);
    long sn = TrimDescriptor.sn(frame);
    if (topology.color(colorId).isEmpty()) {
      writeError(channel, requestId, ErrorCode.UNKNOWN_COLOR, "unknown color id " + colorId);
      return;
    }
    boolean hosted = false;
    long tail = Sn.NONE;
    for (Shard shard : hostedShards.values()) {
      if (topology.isInSubtree(shard.colorId(), colorId)) {
        hosted = true;
        tail = Math.max(tail, tail(shard.id(), colorId));
      }
    }
    if (!hosted) {
      writeError(
          channel,
          requestId,
          ErrorCode.UNKNOWN_SHARD,
          "replica node " + nodeId + " hosts no shard of color id " + colorId);
      return;
    }
    if (sn < 0) {
      writeError(channel, requestId, ErrorCode.INVALID_ARGUMENT, "trim SN must be >= 0, got " + sn);
      return;
    }
    if (sn > tail) {
      writeError(
          channel,
          requestId,
          ErrorCode.INVALID_ARGUMENT,
          "trim beyond the tail of color id "
              + colorId
              + " on replica node "
              + nodeId
              + ": SN "
              + sn
              + " > tail "
              + tail);
      return;
    }
    try {
      storage.trim(colorId, sn);
    } catch (RuntimeException e) {
      LOG.error("replica {} failed to trim color id {} at SN {}", nodeId, colorId, sn, e);
      writeError(
          channel,
          requestId,
          ErrorCode.INTERNAL,
          "replica node " + nodeId + " failed to record the trim point: " + e.getMessage());
      return;
    }
    trims.increment();
    channel.write(
        TrimResponseDescriptor.encode(
            channel.alloc(), requestId, colorId, storage.trimPoint(colorId), tail),
        channel.voidPromise());
    touch(channel);
    scheduleEndOfTurn();
  }

  /** The largest SN of a color known assigned on one shard: committed here or below the bound. */
  private long tail(int shardId, int colorId) {
    ColorLog log = log(shardId, colorId);
    return Math.max(log.index.lastSn(), log.committedThrough());
  }

  public void onMetadataRequest(Channel channel, ByteBuf frame) {
    channel.writeAndFlush(
        MetadataDescriptor.encodeResponse(
            channel.alloc(), FrameDescriptor.requestId(frame), topology, limits.maxRecordBytes()));
  }

  // ---------------------------------------------------------------- subscriptions

  /**
   * SUBSCRIBE: opens a stream of the color's records on one hosted shard (see {@link
   * SubscriptionService}); refusals are ERROR frames carrying the subscription id.
   */
  public void onSubscribe(Channel channel, ByteBuf frame) {
    long id = FrameDescriptor.requestId(frame);
    int colorId = SubscribeDescriptor.colorId(frame);
    int shardId = SubscribeDescriptor.shardId(frame);
    long fromSn = SubscribeDescriptor.fromSn(frame);
    long credit = SubscribeDescriptor.initialCredit(frame);
    Shard shard = hostedShards.get(shardId);
    String refusal = null;
    ErrorCode code = ErrorCode.INVALID_ARGUMENT;
    if (topology.color(colorId).isEmpty()) {
      code = ErrorCode.UNKNOWN_COLOR;
      refusal = "unknown color id " + colorId;
    } else if (shard == null) {
      code = ErrorCode.UNKNOWN_SHARD;
      refusal = "replica node " + nodeId + " does not host shard " + shardId;
    } else if (!topology.isInSubtree(shard.colorId(), colorId)) {
      refusal = "shard " + shardId + " is not in the subtree of color id " + colorId;
    } else if (fromSn < 0) {
      refusal = "subscription start SN must be >= 0, got " + fromSn;
    } else if ((SubscribeDescriptor.flags(frame) & SubscribeDescriptor.REFUSE_TRIMMED) != 0
        && fromSn <= storage.trimPoint(colorId)) {
      code = ErrorCode.TRIMMED;
      refusal =
          "cannot subscribe to color id "
              + colorId
              + " from SN "
              + fromSn
              + ": trimmed through SN "
              + storage.trimPoint(colorId);
    } else if (credit < 0) {
      refusal = "subscription credit must be >= 0, got " + credit;
    } else {
      boolean acceptUnsynced =
          (SubscribeDescriptor.flags(frame) & SubscribeDescriptor.ACCEPT_UNSYNCED) != 0;
      refusal =
          subscriptions.open(channel, id, log(shardId, colorId), fromSn, credit, acceptUnsynced);
    }
    if (refusal != null) {
      writeError(channel, id, code, refusal);
      return;
    }
    scheduleEndOfTurn();
  }

  /** SUBSCRIBE_CREDIT: the subscriber may take more bytes. */
  public void onSubscribeCredit(Channel channel, ByteBuf frame) {
    long credit = SubscribeCreditDescriptor.credit(frame);
    if (credit < 0) {
      writeError(
          channel,
          FrameDescriptor.requestId(frame),
          ErrorCode.INVALID_ARGUMENT,
          "subscription credit must be >= 0, got " + credit);
      return;
    }
    subscriptions.credit(channel, FrameDescriptor.requestId(frame), credit);
    scheduleEndOfTurn();
  }

  /**
   * Starts the subscription heartbeat timer: one timer for the engine, ticking {@link
   * SubscriptionService#TICKS_PER_HEARTBEAT} times per {@link ReplicaLimits#heartbeatInterval()}
   * (see {@link SubscriptionService}). Call once, on the engine's loop, before serving; {@link
   * #stopHeartbeats} ends it.
   */
  public void startHeartbeats() {
    if (heartbeats != null) {
      throw new IllegalStateException("heartbeats already started");
    }
    long periodNs = limits.heartbeatInterval().toNanos() / SubscriptionService.TICKS_PER_HEARTBEAT;
    heartbeats =
        executor.scheduleAtFixedRate(heartbeatTask, periodNs, periodNs, TimeUnit.NANOSECONDS);
  }

  public void stopHeartbeats() {
    if (heartbeats != null) {
      heartbeats.cancel(false);
    }
  }

  private void heartbeat() {
    if (subscriptions.heartbeatTick() > 0) {
      scheduleEndOfTurn(); // flushes the touched channels
    }
  }

  /** UNSUBSCRIBE: ends the subscription; unknown ids are ignored. */
  public void onUnsubscribe(Channel channel, ByteBuf frame) {
    subscriptions.close(channel, FrameDescriptor.requestId(frame));
  }

  /** A client connection can take writes again: resume its subscriptions. */
  public void onChannelWritable(Channel channel) {
    subscriptions.onChannelWritable(channel);
    scheduleEndOfTurn();
  }

  /** A client connection closed: drop its subscriptions and held reads. */
  public void onChannelInactive(Channel channel) {
    subscriptions.onChannelInactive(channel);
    for (int i = held.size() - 1; i >= 0; i--) {
      if (held.get(i).channel == channel) {
        held.remove(i).timeout.cancel(false);
      }
    }
  }

  /**
   * Answers a read if it can be decided now.
   *
   * @param last answer RETRY instead of returning false
   * @return true if an answer was written
   */
  private boolean tryAnswerRead(
      Channel channel, long requestId, int colorId, long sn, boolean last) {
    if (topology.color(colorId).isEmpty()) {
      writeError(channel, requestId, ErrorCode.UNKNOWN_COLOR, "unknown color id " + colorId);
      return true;
    }
    long trimPoint = storage.trimPoint(colorId);
    if (trimPoint != Sn.NONE && sn <= trimPoint) {
      readsTrimmed.increment();
      writeReadStatus(channel, requestId, ReadResponseDescriptor.TRIMMED, colorId, sn, trimPoint);
      return true;
    }
    boolean hosted = false;
    boolean blind = false;
    boolean decided = true;
    long bound = Long.MAX_VALUE;
    for (Shard shard : hostedShards.values()) {
      if (!topology.isInSubtree(shard.colorId(), colorId)) {
        continue;
      }
      hosted = true;
      ColorLog log = log(shard.id(), colorId);
      long address = log.index.address(sn);
      if (address != SnIndex.NOT_FOUND) {
        writeFound(channel, requestId, colorId, sn, address, log.committedThrough());
        return true;
      }
      blind |= log.isBlind(sn);
      decided &= sn <= log.committedThrough();
      bound = Math.min(bound, log.committedThrough());
    }
    if (!hosted) {
      writeError(
          channel,
          requestId,
          ErrorCode.UNKNOWN_SHARD,
          "replica node " + nodeId + " hosts no shard of color id " + colorId);
      return true;
    }
    if (decided && !blind) {
      readsAbsent.increment();
      writeReadStatus(channel, requestId, ReadResponseDescriptor.ABSENT, colorId, sn, bound);
      return true;
    }
    if (blind || last) {
      readsRetry.increment();
      writeReadStatus(channel, requestId, ReadResponseDescriptor.RETRY, colorId, sn, bound);
      return true;
    }
    return false;
  }

  private void expire(HeldRead read) {
    if (held.remove(read)) {
      tryAnswerRead(read.channel, read.requestId, read.colorId, read.sn, true);
      read.channel.flush();
    }
  }

  // ---------------------------------------------------------------- sequencer messages

  public void onOrderResponse(ByteBuf frame) {
    int colorId = OrderResponseDescriptor.colorId(frame);
    int shardId = OrderResponseDescriptor.shardId(frame);
    if (!hostedShards.containsKey(shardId)) {
      LOG.warn("ORDER_RESPONSE for shard {} which node {} does not host", shardId, nodeId);
      return;
    }
    int count = OrderResponseDescriptor.count(frame);
    for (int i = 0; i < count; i++) {
      long session = OrderResponseDescriptor.tokenSession(frame, i);
      long sequence = OrderResponseDescriptor.tokenSequence(frame, i);
      long sn = OrderResponseDescriptor.sn(frame, i);
      int slot = pending.find(session, sequence);
      if (slot != PendingAppends.NONE) {
        if (pending.sn(slot) == Sn.NONE) {
          commit(slot, sn);
        }
      } else if (committedTokens.get(session, sequence) == Sn.NONE) {
        earlyAssignments.put(session, sequence, sn);
        log(shardId, colorId).awaitRecord(sn);
      }
    }
    scheduleEndOfTurn();
  }

  /**
   * A watermark from sequencer node {@code sequencerId}. It covers only the shards attached through
   * that node: the FIFO guarantee (every order response with a smaller SN came first) holds per
   * connection, so a watermark of {@code global} from one leaf says nothing about the order
   * responses another leaf still has to deliver for the shards it serves.
   */
  public void onWatermark(int sequencerId, ByteBuf frame) {
    int colorId = WatermarkDescriptor.colorId(frame);
    long watermark = WatermarkDescriptor.watermark(frame);
    for (Shard shard : hostedShards.values()) {
      if (topology.isInSubtree(shard.colorId(), colorId)
          && sequencerOf(shard.id()) == sequencerId) {
        log(shard.id(), colorId).onWatermark(watermark);
      }
    }
    scheduleEndOfTurn();
  }

  /**
   * A join mark from sequencer node {@code sequencerId} (DESIGN §3.4): the subtree of the color
   * gained shards, whose records of the color all have SNs at or above the mark. Kept by every log
   * of the color on the shards attached through that node (the connection that carries the color's
   * watermarks to them, so the mark precedes every watermark that reaches it), and delivered by
   * their subscriptions.
   */
  public void onTopologyMark(int sequencerId, ByteBuf frame) {
    int colorId = TopologyMarkDescriptor.colorId(frame);
    long version = TopologyMarkDescriptor.topologyVersion(frame);
    long markSn = TopologyMarkDescriptor.markSn(frame);
    for (Shard shard : hostedShards.values()) {
      if (topology.isInSubtree(shard.colorId(), colorId)
          && sequencerOf(shard.id()) == sequencerId) {
        ColorLog log = log(shard.id(), colorId);
        if (log.addMark(version, markSn) && !log.subscribers.isEmpty()) {
          subscriptions.onMark(log);
        }
      }
    }
    scheduleEndOfTurn();
  }

  /**
   * The sequencer node accepted this replica's HELLO (WELCOME from process {@code incarnation}):
   * for every shard attached through it, synchronise the unassigned pending tokens with the other
   * replicas of the shard, then request SNs for those no replica has one for (see {@link
   * TokenSync}).
   */
  public void onSequencerLinkUp(int sequencerId, int incarnation) {
    linkIncarnations.put(sequencerId, incarnation);
    tokenSync.release(sequencerId);
    tokenSync.cancelRounds(sequencerId);
    for (Shard shard : hostedShards.values()) {
      if (sequencerOf(shard.id()) != sequencerId) {
        continue;
      }
      int[] peerIds = peersOf(shard);
      UnassignedTokens tokens = new UnassignedTokens(shard.id());
      pending.forEachUnassigned(tokens);
      if (tokens.count == 0) {
        continue;
      }
      if (peerIds.length == 0 || !tokenSync.enabled()) {
        requestUnassigned(shard.id(), tokens.sessions, tokens.sequences, tokens.count);
      } else {
        LOG.info(
            "replica {} synchronises {} pending token(s) of shard {} with replica(s) {} before"
                + " asking sequencer {} (incarnation {}) for SNs",
            nodeId,
            tokens.count,
            shard.id(),
            java.util.Arrays.toString(peerIds),
            sequencerId,
            incarnation);
        tokenSync.start(
            shard.id(),
            sequencerId,
            incarnation,
            peerIds,
            tokens.sessions,
            tokens.sequences,
            tokens.count);
      }
    }
    scheduleEndOfTurn();
  }

  /** The link to a sequencer broke: SNs assigned meanwhile may never reach this replica. */
  public void onSequencerLinkLost(int sequencerId) {
    linkIncarnations.remove(sequencerId);
    tokenSync.cancelRounds(sequencerId);
    tokenSync.release(sequencerId);
    for (ColorLog log : logList) {
      if (sequencerOf(log.shardId) == sequencerId) {
        log.onLinkLost();
      }
    }
    scheduleEndOfTurn();
  }

  /** TOKEN_SYNC from another replica of one of this node's shards. */
  public void onTokenSync(Channel channel, ByteBuf frame) {
    long requestId = FrameDescriptor.requestId(frame);
    int shardId = TokenSyncDescriptor.shardId(frame);
    if (!hostedShards.containsKey(shardId)) {
      writeError(
          channel,
          requestId,
          ErrorCode.UNKNOWN_SHARD,
          "replica node " + nodeId + " does not host shard " + shardId);
      return;
    }
    int count = TokenSyncDescriptor.count(frame);
    long[] sessions = new long[count];
    long[] sequences = new long[count];
    for (int i = 0; i < count; i++) {
      sessions[i] = TokenSyncDescriptor.tokenSession(frame, i);
      sequences[i] = TokenSyncDescriptor.tokenSequence(frame, i);
    }
    tokenSync.onRequest(
        channel,
        requestId,
        shardId,
        TokenSyncDescriptor.sequencerNodeId(frame),
        TokenSyncDescriptor.incarnation(frame),
        sessions,
        sequences);
  }

  /** TOKEN_SYNC_RESPONSE from a peer, through this node's peer connections. */
  public void onTokenSyncResponse(ByteBuf frame) {
    tokenSync.onResponse(
        FrameDescriptor.requestId(frame),
        TokenSyncResponseDescriptor.replicaNodeId(frame),
        TokenSyncResponseDescriptor.count(frame),
        i -> TokenSyncResponseDescriptor.sn(frame, i));
    scheduleEndOfTurn();
  }

  /** True if a frame from a peer connection answers one of this engine's TOKEN_SYNC requests. */
  public static boolean isTokenSyncReply(ByteBuf frame) {
    byte type = FrameDescriptor.type(frame);
    return type == MessageType.TOKEN_SYNC_RESPONSE
        || (type == MessageType.ERROR
            && FrameDescriptor.requestId(frame) >= TokenSync.REQUEST_ID_BASE);
  }

  /** A peer refused a TOKEN_SYNC (it does not know the shard yet): the round's timer retries. */
  public void onTokenSyncError(ByteBuf frame) {
    LOG.debug(
        "replica {}: a peer refused a token sync ({}: {}); retrying",
        nodeId,
        ErrorDescriptor.code(frame),
        ErrorDescriptor.message(frame));
  }

  private int[] peersOf(Shard shard) {
    return shard.replicaNodeIds().stream()
        .mapToInt(Integer::intValue)
        .filter(id -> id != nodeId)
        .toArray();
  }

  private void requestUnassigned(int shardId, long[] sessions, long[] sequences, int count) {
    for (int i = 0; i < count; i++) {
      int slot = pending.find(sessions[i], sequences[i]);
      if (slot != PendingAppends.NONE && pending.sn(slot) == Sn.NONE) {
        batch(shardId, pending.color(slot)).add(sessions[i], sequences[i]);
      }
    }
  }

  /** The SN this replica knows for a token: committed, assigned this turn, or assigned early. */
  private long knownSn(long session, long sequence) {
    long sn = committedTokens.get(session, sequence);
    if (sn != Sn.NONE) {
      return sn;
    }
    int slot = pending.find(session, sequence);
    if (slot != PendingAppends.NONE) {
      return pending.sn(slot);
    }
    return earlyAssignments.get(session, sequence);
  }

  /** Collects the unassigned pending tokens of one shard. */
  private final class UnassignedTokens implements PendingAppends.SlotVisitor {
    final int shardId;
    long[] sessions = new long[16];
    long[] sequences = new long[16];
    int count;

    UnassignedTokens(int shardId) {
      this.shardId = shardId;
    }

    @Override
    public void accept(int slot) {
      if (pending.shard(slot) != shardId) {
        return;
      }
      if (count == sessions.length) {
        sessions = java.util.Arrays.copyOf(sessions, count * 2);
        sequences = java.util.Arrays.copyOf(sequences, count * 2);
      }
      sessions[count] = pending.tokenSession(slot);
      sequences[count] = pending.tokenSequence(slot);
      count++;
    }
  }

  /** The engine's side of {@link TokenSync}. */
  private final class SyncHost implements TokenSync.Host {
    @Override
    public int nodeId() {
      return nodeId;
    }

    @Override
    public int linkIncarnation(int sequencerId) {
      return linkIncarnations.get(sequencerId);
    }

    @Override
    public void answer(
        Channel channel, long requestId, int shardId, long[] sessions, long[] sequences) {
      ByteBuf response =
          TokenSyncResponseDescriptor.encodeHeader(
              channel.alloc(), requestId, shardId, nodeId, sessions.length);
      for (int i = 0; i < sessions.length; i++) {
        response.writeLong(knownSn(sessions[i], sequences[i]));
      }
      channel.write(response, channel.voidPromise());
      touch(channel);
      scheduleEndOfTurn();
    }

    @Override
    public void adopt(int shardId, long session, long sequence, long sn, int fromNodeId) {
      int slot = pending.find(session, sequence);
      long mine = slot != PendingAppends.NONE ? pending.sn(slot) : knownSn(session, sequence);
      if (mine == Sn.NONE) {
        if (slot != PendingAppends.NONE) {
          commit(slot, sn);
        }
      } else if (mine != sn) {
        LOG.error(
            "replica {}: shard {} holds one token at two SNs: {} here, {} on replica {}",
            nodeId,
            shardId,
            Sn.describe(mine),
            Sn.describe(sn),
            fromNodeId);
      }
    }

    @Override
    public void complete(int shardId, long[] sessions, long[] sequences, int count) {
      requestUnassigned(shardId, sessions, sequences, count);
      scheduleEndOfTurn();
    }
  }

  /** For tests: the replica's {@code committedThrough} of a color on one of its shards. */
  long committedThrough(int shardId, int colorId) {
    return log(shardId, colorId).committedThrough();
  }

  /** The sequencer node the shard is attached to (the role of the shard's color). */
  public int sequencerOf(int shardId) {
    Shard shard = hostedShards.get(shardId);
    return topology.color(shard.colorId()).orElseThrow().sequencerId();
  }

  // ---------------------------------------------------------------- the end of a turn

  private void commit(int slot, long sn) {
    storage.commit(pending.address(slot), sn);
    pending.setSn(slot, sn);
    if (committedCount == committedSlots.length) {
      committedSlots = java.util.Arrays.copyOf(committedSlots, committedCount * 2);
    }
    committedSlots[committedCount++] = slot;
  }

  private void scheduleEndOfTurn() {
    if (!endOfTurnScheduled) {
      endOfTurnScheduled = true;
      executor.execute(endOfTurnTask);
    }
  }

  /**
   * Makes the turn's writes durable, then lets them take effect: order requests go out only for
   * entries that are durable, acks only for commits that are durable.
   */
  void endOfTurn() {
    endOfTurnScheduled = false;
    if (inEndOfTurn) {
      // Re-entered from a flush that ran pending tasks: finish the outer turn, then run again.
      scheduleEndOfTurn();
      return;
    }
    inEndOfTurn = true;
    try {
      storage.flush();
      staging.onFlushed();
      sendOrderRequests();
      publishCommits();
      for (int i = 0; i < logList.size(); i++) {
        ColorLog log = logList.get(i);
        if (log.advance() && !log.subscribers.isEmpty()) {
          subscriptions.onAdvanced(log);
        }
      }
      answerHeldReads();
      subscriptions.pumpReady();
      if (subscriptions.hasReady()) {
        scheduleEndOfTurn(); // more to send: next turn, after the loop has served other channels
      }
      for (int i = 0; i < touched.size(); i++) {
        touched.get(i).flush();
      }
      touched.clear();
    } finally {
      inEndOfTurn = false;
    }
  }

  private void sendOrderRequests() {
    if (activeBatches.isEmpty()) {
      return;
    }
    for (OrderRequestBatch batch : activeBatches) {
      sequencers.send(batch, nodeId);
      batch.clear();
    }
    activeBatches.clear();
    sequencers.flush();
  }

  private void publishCommits() {
    if (committedCount > 0) {
      commitBatch.record(committedCount);
    }
    for (int i = 0; i < committedCount; i++) {
      int slot = committedSlots[i];
      long sn = pending.sn(slot);
      long session = pending.tokenSession(slot);
      long sequence = pending.tokenSequence(slot);
      ColorLog log = log(pending.shard(slot), pending.color(slot));
      log.index.add(sn, pending.address(slot));
      log.recordArrived(sn);
      committedTokens.put(session, sequence, sn);
      Channel waiter = pending.waiter(slot);
      if (waiter != null) {
        writeAck(waiter, pending.waiterRequestId(slot), session, sequence, sn, pending.color(slot));
      }
      pending.remove(slot);
    }
    committedCount = 0;
  }

  private void answerHeldReads() {
    for (int i = held.size() - 1; i >= 0; i--) {
      HeldRead read = held.get(i);
      if (tryAnswerRead(read.channel, read.requestId, read.colorId, read.sn, false)) {
        held.remove(i);
        read.timeout.cancel(false);
      }
    }
  }

  // ---------------------------------------------------------------- helpers

  private ColorLog log(int shardId, int colorId) {
    long key = ((long) shardId << 32) | (colorId & 0xFFFF_FFFFL);
    ColorLog log = logs.get(key);
    if (log == null) {
      log = new ColorLog(shardId, colorId);
      logs.put(key, log);
      logList.add(log);
    }
    return log;
  }

  private OrderRequestBatch batch(int shardId, int colorId) {
    long key = ((long) shardId << 32) | (colorId & 0xFFFF_FFFFL);
    OrderRequestBatch batch = batches.get(key);
    if (batch == null) {
      batch = new OrderRequestBatch(shardId, colorId);
      batches.put(key, batch);
    }
    if (batch.count() == 0) {
      activeBatches.add(batch);
    }
    return batch;
  }

  private void touch(Channel channel) {
    if (!touched.contains(channel)) {
      touched.add(channel);
    }
  }

  private void writeAck(
      Channel channel, long requestId, long session, long sequence, long sn, int colorId) {
    channel.write(
        AppendAckDescriptor.encode(
            channel.alloc(), requestId, session, sequence, sn, colorId, nodeId),
        channel.voidPromise());
    touch(channel);
    scheduleEndOfTurn();
  }

  private void writeFound(
      Channel channel, long requestId, int colorId, long sn, long address, long bound) {
    readsFound.increment();
    ByteBuf payload = storage.retainedPayload(address); // released by Netty after the write
    channel.write(
        ReadResponseDescriptor.encodeHeader(
            channel.alloc(),
            requestId,
            ReadResponseDescriptor.FOUND,
            colorId,
            sn,
            bound,
            payload.readableBytes()),
        channel.voidPromise());
    channel.write(payload, channel.voidPromise());
    touch(channel);
    scheduleEndOfTurn();
  }

  private void writeReadStatus(
      Channel channel, long requestId, byte status, int colorId, long sn, long bound) {
    channel.write(
        ReadResponseDescriptor.encodeHeader(
            channel.alloc(), requestId, status, colorId, sn, bound, 0),
        channel.voidPromise());
    touch(channel);
    scheduleEndOfTurn();
  }

  private void writeError(Channel channel, long requestId, ErrorCode code, String message) {
    channel.write(
        ErrorDescriptor.encode(channel.alloc(), requestId, code, message), channel.voidPromise());
    touch(channel);
    scheduleEndOfTurn();
  }

  /**
   * A client channel as the atomic component sees it; one per channel, kept as a channel attribute
   * so that the component can tell connections apart. A bridge until the engine itself works on
   * {@link Connection}s.
   */
  private static final class ChannelConnection implements Connection {
    private static final AttributeKey<ChannelConnection> KEY =
        AttributeKey.valueOf("flexlog.replica.atomic-connection");
    private final Channel channel;

    private ChannelConnection(Channel channel) {
      this.channel = channel;
    }

    static Connection of(Channel channel) {
      Attribute<ChannelConnection> attribute = channel.attr(KEY);
      ChannelConnection connection = attribute.get();
      if (connection == null) {
        connection = new ChannelConnection(channel);
        attribute.set(connection);
      }
      return connection;
    }

    @Override
    public ByteBufAllocator alloc() {
      return channel.alloc();
    }

    @Override
    public void write(ByteBuf frame) {
      channel.write(frame, channel.voidPromise());
    }

    @Override
    public void flush() {
      channel.flush();
    }

    @Override
    public boolean isActive() {
      return channel.isActive();
    }

    @Override
    public boolean isWritable() {
      return channel.isWritable();
    }

    @Override
    public void close() {
      channel.close();
    }
  }

  /** A read that could not be decided yet, waiting for commits or watermarks or its timeout. */
  private static final class HeldRead {
    final Channel channel;
    final long requestId;
    final int colorId;
    final long sn;
    io.netty.util.concurrent.ScheduledFuture<?> timeout;

    HeldRead(Channel channel, long requestId, int colorId, long sn) {
      this.channel = channel;
      this.requestId = requestId;
      this.colorId = colorId;
      this.sn = sn;
    }
  }
}
