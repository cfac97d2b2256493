package io.flexlog.replica.replication;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.AppendDescriptor;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.ReadDescriptor;
import io.flexlog.core.protocol.SubscribeCreditDescriptor;
import io.flexlog.core.protocol.SubscribeDescriptor;
import io.flexlog.core.protocol.SyncFetchDescriptor;
import io.flexlog.core.protocol.TailDescriptor;
import io.flexlog.core.protocol.TokenSyncDescriptor;
import io.flexlog.core.protocol.TokenSyncResponseDescriptor;
import io.flexlog.core.protocol.TopologyMarkDescriptor;
import io.flexlog.core.protocol.TrimDescriptor;
import io.flexlog.core.protocol.WatermarkDescriptor;
import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.SyncPointStore;
import io.flexlog.replica.storage.TrimmedTokenStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.EventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replication protocol of one replica node (docs/architecture.md#protocols, paper Alg. 1), free
 * of sockets and threads: the node's adapter hands it every frame as an {@code onXxx(connection,
 * frame)} call, it decodes the frame's fields and drives the state machine of the frame's concern:
 * {@link AppendPath} (pending, order, commit, ack; {@link AppendSync} its side of the sync phase),
 * {@link ReadPath} (hold or decide), {@link Trims}, {@link SubscriptionService}, {@link SyncPhase}
 * with {@link TokenSync}, and {@link ShardLogs} (watermarks and join marks). Replies are encoded by
 * the {@link ReplicaPublisher}; the {@link TurnConductor} ends each turn. See the package
 * documentation for who talks to whom.
 *
 * <p>Threading: every method runs on the thread of the {@link ReplicaRuntime}, the node's event
 * loop; the network adapters call in from it.
 */
public final class ReplicationEngine {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicationEngine.class);

  private final int nodeId;
  private final LogStorage storage;
  private final ReplicaLimits limits;
  private final ShardLogs shards;
  private final ReplicaPublisher publisher;
  private final AppendPath appends;
  private final ReadPath reads;
  private final Trims trims;
  private final TrimmedTokens trimmedTokens;
  private final ReplicaStatusReport statusReport;
  private final RetentionPolicy retention;
  private final SubscriptionService subscriptions;
  private final SyncPhase sync;
  private final SyncPoints syncPoints;
  private final TurnConductor turn;
  private final OrderResponses orderResponses;
  private StagingHook staging = StagingHook.NONE;

  public ReplicationEngine(
      int nodeId,
      Topology topology,
      LogStorage storage,
      ReplicaLimits limits,
      SequencerGateway sequencers,
      ReplicaRuntime runtime,
      MeterRegistry registry) {
    this.nodeId = nodeId;
    this.storage = storage;
    this.limits = limits;
    Runnable requestTurn = this::requestEndOfTurn;
    this.shards = new ShardLogs(nodeId, topology);
    this.publisher = new ReplicaPublisher(nodeId, storage, requestTurn);
    ColorMeters colorMeters =
        new ColorMeters(
            registry, Integer.toString(nodeId), id -> ColorMeters.name(shards.topology(), id));
    this.appends =
        new AppendPath(
            shards,
            storage,
            limits,
            sequencers,
            publisher,
            requestTurn,
            new AppendPath.Clocked(runtime, colorMeters),
            registry);
    this.reads = new ReadPath(shards, storage, limits, runtime, publisher, colorMeters, registry);
    this.trimmedTokens = new TrimmedTokens(shards, storage, appends.committedTokens(), registry);
    this.trims = new Trims(shards, storage, trimmedTokens, publisher, registry);
    this.statusReport = new ReplicaStatusReport(shards, storage, publisher);
    this.retention = new RetentionPolicy(shards, storage, trims, runtime, publisher, registry);
    this.subscriptions =
        new SubscriptionService(shards, storage, limits, runtime, publisher, requestTurn, registry);
    this.syncPoints = new SyncPoints(shards, storage, runtime, registry);
    this.sync =
        new SyncPhase(
            shards,
            new AppendSync(shards, storage, appends, requestTurn),
            storage,
            runtime,
            publisher,
            requestTurn,
            log -> {
              subscriptions.onAdvanced(log);
              syncPoints.soon();
            },
            trims,
            registry);
    this.turn =
        new TurnConductor(runtime, storage, shards, appends, reads, subscriptions, sync, publisher);
    this.orderResponses = new OrderResponses(nodeId, shards, appends, registry);
    shards.onMarks(subscriptions::onMark);
  }

  /** On a Netty event executor (see {@link EventExecutorRuntime}). */
  public ReplicationEngine(
      int nodeId,
      Topology topology,
      LogStorage storage,
      ReplicaLimits limits,
      SequencerGateway sequencers,
      EventExecutor executor,
      MeterRegistry registry) {
    this(
        nodeId,
        topology,
        storage,
        limits,
        sequencers,
        new EventExecutorRuntime(executor),
        registry);
  }

  /**
   * Lets the engine reach the other replicas of its shards, for the token sync of
   * docs/architecture.md#token-sync. Without peers (tests of a single replica), pending tokens are
   * re-requested at once when a sequencer link comes up.
   */
  public void attachPeers(PeerGateway peers) {
    sync.peers(peers);
    retention.peers(peers);
  }

  /**
   * Installs the atomic-append component (docs/architecture.md#atomic-multi-color-append). Call
   * before {@link #recover()}, so that recovery hands it the staging entries.
   */
  public void attachStaging(StagingHook hook) {
    this.staging = hook;
    turn.staging(hook);
  }

  /** Keeps the sync points and join marks in {@code store} ({@link SyncPoints}); before recover. */
  public void attachSyncPoints(SyncPointStore store) {
    syncPoints.store(store);
  }

  /**
   * Keeps the tokens of trimmed records in {@code store} ({@link TrimmedTokens}), so that a restart
   * still recognizes them; before recover.
   */
  public void attachTrimmedTokens(TrimmedTokenStore store) {
    trimmedTokens.store(store);
  }

  /** Saves the sync points if they moved (at a clean stop). */
  public void saveSyncPoints() {
    syncPoints.saveIfMoved();
  }

  /** Asks for an end of turn: a log flush, then {@link StagingHook#onFlushed()}. */
  public void requestEndOfTurn() {
    turn.request();
  }

  /** The latest topology applied (see {@link #updateTopology}). */
  public Topology topology() {
    return shards.topology();
  }

  /**
   * Applies a newer topology: from now on requests are checked against it, METADATA_RESPONSE serves
   * it, and the shards it newly places on this node are hosted (their logs start empty). Shards are
   * never removed. A topology whose version is not larger than the current one is ignored. A shard
   * whose role moved to another leader resynchronises (see {@link SyncPhase#onRolesMoved}).
   *
   * @return the ids of the newly hosted shards, sorted
   */
  public int[] updateTopology(Topology next) {
    Topology before = shards.topology();
    int[] added = shards.updateTopology(next);
    if (shards.topology() == next) {
      sync.onRolesMoved(before, next);
    }
    retention.onTopology();
    return added;
  }

  /** The shards this node hosts, sorted by id. */
  public int[] hostedShardIds() {
    return shards.hostedShardIds();
  }

  /** The sequencer node the shard is attached to (the role of the shard's color). */
  public int sequencerOf(int shardId) {
    return shards.sequencerOf(shardId);
  }

  /**
   * Rebuilds the index from the log: committed entries become readable, pending ones wait for their
   * SN (re-requested when the sequencer link comes up). Call before serving.
   */
  public void recover() {
    int[] counts = new int[2];
    trimmedTokens.restore();
    storage.recover(
        (address, shardId, colorId, session, sequence, sn, length) -> {
          if (colorId == StagingHook.STAGING_COLOR_ID) {
            staging.onRecoveredEntry(address, shardId, session, sequence, sn);
            return;
          }
          if (!shards.hosts(shardId)) {
            LOG.warn(
                "log holds an entry of shard {} which node {} no longer hosts", shardId, nodeId);
            return;
          }
          appends.onRecoveredEntry(address, shardId, colorId, session, sequence, sn);
          counts[sn != Sn.NONE ? 0 : 1]++;
        });
    syncPoints.restore();
    staging.onRecovered();
    LOG.info(
        "replica {} recovered {} committed and {} pending entries ({} engine, {} durability)",
        nodeId,
        counts[0],
        counts[1],
        storage.engineName(),
        storage.durability().configName());
  }

  // ---------------------------------------------------------------- client frames

  public void onAppend(Connection c, ByteBuf frame) {
    appends.onAppend(
        c,
        FrameDescriptor.requestId(frame),
        AppendDescriptor.tokenSession(frame),
        AppendDescriptor.tokenSequence(frame),
        AppendDescriptor.colorId(frame),
        AppendDescriptor.shardId(frame),
        AppendDescriptor.payload(frame));
  }

  /** APPEND_BATCH: several records of one color for one shard, each under its own token. */
  public void onAppendBatch(Connection c, ByteBuf frame) {
    appends.onAppendBatch(c, FrameDescriptor.requestId(frame), frame);
  }

  /** STAGE or COMMIT_GROUP: handed to the atomic-append component. */
  public void onAtomicFrame(Connection c, ByteBuf frame) {
    if (!staging.onClientFrame(c, frame)) {
      publisher.error(
          c,
          FrameDescriptor.requestId(frame),
          ErrorCode.INVALID_ARGUMENT,
          "replica node " + nodeId + " does not serve atomic appends");
    }
  }

  public void onRead(Connection c, ByteBuf frame) {
    reads.onRead(
        c,
        FrameDescriptor.requestId(frame),
        ReadDescriptor.colorId(frame),
        ReadDescriptor.sn(frame));
  }

  /** TRIM: see {@link Trims}. */
  public void onTrim(Connection c, ByteBuf frame) {
    trims.onTrim(
        c,
        FrameDescriptor.requestId(frame),
        TrimDescriptor.colorId(frame),
        TrimDescriptor.sn(frame));
  }

  /** TAIL_REQUEST: see {@link Trims#onTailRequest}. */
  public void onTailRequest(Connection c, ByteBuf frame) {
    trims.onTailRequest(c, FrameDescriptor.requestId(frame), TailDescriptor.colorId(frame));
  }

  /** REPLICA_STATUS: see {@link ReplicaStatusReport}. */
  public void onReplicaStatus(Connection c, ByteBuf frame) {
    statusReport.answer(c, FrameDescriptor.requestId(frame));
  }

  public void onMetadataRequest(Connection c, ByteBuf frame) {
    publisher.metadata(
        c, FrameDescriptor.requestId(frame), shards.topology(), limits.maxRecordBytes());
  }

  /** A frame type replicas do not serve: refused with INVALID_ARGUMENT at once. */
  public void onUnsupportedFrame(Connection c, ByteBuf frame) {
    publisher.errorNow(
        c,
        FrameDescriptor.requestId(frame),
        ErrorCode.INVALID_ARGUMENT,
        "a replica does not serve " + MessageType.name(FrameDescriptor.type(frame)) + " frames");
  }

  /** SUBSCRIBE: see {@link SubscriptionService}; refusals are ERROR frames with its id. */
  public void onSubscribe(Connection c, ByteBuf frame) {
    subscriptions.onSubscribe(
        c,
        FrameDescriptor.requestId(frame),
        SubscribeDescriptor.colorId(frame),
        SubscribeDescriptor.shardId(frame),
        SubscribeDescriptor.fromSn(frame),
        SubscribeDescriptor.initialCredit(frame),
        SubscribeDescriptor.flags(frame));
  }

  /** SUBSCRIBE_CREDIT: the subscriber may take more bytes. */
  public void onSubscribeCredit(Connection c, ByteBuf frame) {
    subscriptions.onCredit(
        c, FrameDescriptor.requestId(frame), SubscribeCreditDescriptor.credit(frame));
  }

  /** UNSUBSCRIBE: ends the subscription; unknown ids are ignored. */
  public void onUnsubscribe(Connection c, ByteBuf frame) {
    subscriptions.close(c, FrameDescriptor.requestId(frame));
  }

  /**
   * Starts the subscription heartbeat timer (see {@link SubscriptionService}), the retention timer
   * ({@link RetentionPolicy}, while a color this node decides for has a retention) and the sync
   * points' ({@link SyncPoints}). Call once, on the engine's loop, before serving; {@link
   * #stopHeartbeats} ends them.
   */
  public void startHeartbeats() {
    subscriptions.startHeartbeats();
    retention.start();
    syncPoints.start();
  }

  public void stopHeartbeats() {
    subscriptions.stopHeartbeats();
    retention.stop();
    syncPoints.stop();
  }

  /** A client connection can take writes again: resume its subscriptions. */
  public void onConnectionWritable(Connection c) {
    subscriptions.onConnectionWritable(c);
  }

  /** A client connection closed: drop its subscriptions and held reads. */
  public void onConnectionClosed(Connection c) {
    subscriptions.onConnectionClosed(c);
    reads.onConnectionClosed(c);
  }

  // ---------------------------------------------------------------- sequencer frames

  /**
   * ORDER_RESPONSE from sequencer node {@code sequencerId}, taken only past the fence of {@link
   * OrderResponses} (docs/architecture.md#fencing).
   */
  public void onOrderResponse(int sequencerId, ByteBuf frame) {
    if (orderResponses.onOrderResponse(sequencerId, frame)) {
      turn.request();
    }
  }

  /** A watermark from sequencer node {@code sequencerId}; see {@link ShardLogs#onWatermark}. */
  public void onWatermark(int sequencerId, ByteBuf frame) {
    shards.onWatermark(
        sequencerId, WatermarkDescriptor.colorId(frame), WatermarkDescriptor.watermark(frame));
    turn.request();
  }

  /** A join mark from sequencer node {@code sequencerId}; see {@link ShardLogs#onTopologyMark}. */
  public void onTopologyMark(int sequencerId, ByteBuf frame) {
    shards.onTopologyMark(
        sequencerId,
        TopologyMarkDescriptor.colorId(frame),
        TopologyMarkDescriptor.topologyVersion(frame),
        TopologyMarkDescriptor.markSn(frame));
    syncPoints.soon();
    turn.request();
  }

  /** WELCOME from sequencer process {@code incarnation}: see {@link SyncPhase#onLinkUp}. */
  public void onSequencerLinkUp(int sequencerId, int incarnation) {
    sync.onLinkUp(sequencerId, incarnation);
  }

  /** The link to a sequencer broke: SNs assigned meanwhile may never reach this replica. */
  public void onSequencerLinkLost(int sequencerId) {
    sync.onLinkLost(sequencerId);
  }

  // ---------------------------------------------------------------- peer frames

  /** TOKEN_SYNC from another replica of one of this node's shards. */
  public void onTokenSync(Connection c, ByteBuf frame) {
    int count = TokenSyncDescriptor.count(frame);
    long[] sessions = new long[count];
    long[] sequences = new long[count];
    for (int i = 0; i < count; i++) {
      sessions[i] = TokenSyncDescriptor.tokenSession(frame, i);
      sequences[i] = TokenSyncDescriptor.tokenSequence(frame, i);
    }
    sync.onTokenSync(
        c,
        FrameDescriptor.requestId(frame),
        TokenSyncDescriptor.shardId(frame),
        TokenSyncDescriptor.sequencerNodeId(frame),
        TokenSyncDescriptor.incarnation(frame),
        sessions,
        sequences);
  }

  /** TOKEN_SYNC_RESPONSE from a peer, through this node's peer connections. */
  public void onTokenSyncResponse(ByteBuf frame) {
    sync.onTokenSyncResponse(
        FrameDescriptor.requestId(frame),
        TokenSyncResponseDescriptor.replicaNodeId(frame),
        TokenSyncResponseDescriptor.count(frame),
        i -> TokenSyncResponseDescriptor.sn(frame, i));
  }

  /** SYNC_FETCH from another replica of one of this node's shards (the sync phase). */
  public void onSyncFetch(Connection c, ByteBuf frame) {
    sync.onSyncFetch(
        c,
        FrameDescriptor.requestId(frame),
        SyncFetchDescriptor.shardId(frame),
        SyncFetchDescriptor.colorId(frame),
        SyncFetchDescriptor.sequencerNodeId(frame),
        SyncFetchDescriptor.incarnation(frame),
        SyncFetchDescriptor.afterSn(frame),
        SyncFetchDescriptor.throughSn(frame));
  }

  /** SYNC_ENTRIES from a peer, through this node's peer connections. */
  public void onSyncEntries(ByteBuf frame) {
    sync.onSyncEntries(FrameDescriptor.requestId(frame), frame);
  }

  /**
   * True if a frame from a peer connection answers one of this engine's sync requests (TOKEN_SYNC
   * or SYNC_FETCH), not the atomic forwarder's.
   */
  public static boolean isTokenSyncReply(ByteBuf frame) {
    byte type = FrameDescriptor.type(frame);
    return type == MessageType.TOKEN_SYNC_RESPONSE
        || type == MessageType.SYNC_ENTRIES
        || (type == MessageType.ERROR
            && FrameDescriptor.requestId(frame) >= TokenSync.REQUEST_ID_BASE);
  }

  /** A peer refused a sync request (it does not know the shard yet): the retry timer asks again. */
  public void onTokenSyncError(ByteBuf frame) {
    LOG.debug(
        "replica {}: a peer refused a token sync ({}: {}); retrying",
        nodeId,
        ErrorDescriptor.code(frame),
        ErrorDescriptor.message(frame));
  }

  // ---------------------------------------------------------------- for tests

  /** The replica's {@code committedThrough} of a color on one of its shards. */
  long committedThrough(int shardId, int colorId) {
    return shards.committedThrough(shardId, colorId);
  }

  /** For tests: the entries the index of a color on a shard holds. */
  int indexedEntries(int shardId, int colorId) {
    return shards.log(shardId, colorId).index.size();
  }

  /** Reads held until a commit, a watermark or their timeout decides them. */
  int heldReads() {
    return reads.heldCount();
  }

  void endOfTurn() {
    turn.endOfTurn();
  }
}
