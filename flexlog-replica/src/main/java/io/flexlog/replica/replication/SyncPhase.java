package io.flexlog.replica.replication;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import io.flexlog.replica.storage.LogStorage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.function.Consumer;
import org.agrona.collections.Int2IntHashMap;
import org.agrona.collections.Int2ObjectHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a replica does when a sequencer link comes up or breaks (docs/architecture.md). On WELCOME,
 * for every shard attached through that sequencer node, it synchronises the unassigned pending
 * tokens with the other replicas of the shard ({@link TokenSync}), then requests SNs for those no
 * replica has one for; on a lost link the shard's logs turn blind until the next watermark. It also
 * answers the TOKEN_SYNC requests of the other replicas, and is the append path's side of the
 * {@link TokenSync} (adopting the SNs peers report).
 *
 * <p>Threading: the replica's event loop.
 */
final class SyncPhase implements TokenSync.Host, RangeSync.Host {
  private static final Logger LOG = LoggerFactory.getLogger(SyncPhase.class);

  private final ShardLogs shards;
  private final AppendSync appends;
  private final ReplicaPublisher publisher;
  private final Runnable requestTurn;
  private final TokenSync tokenSync;
  private final RangeSync rangeSync;
  private final Consumer<ColorLog> closedListener;
  private final Trims trims;
  private final ReplicaRuntime runtime;
  private final Counter abandoned;

  /**
   * Per shard, the tokens it held without an SN when its sequencer link last came up: until each
   * has one, this replica is not settled for the sync phase (see {@link RangeSync}).
   */
  private final Int2ObjectHashMap<AppendSync.UnassignedTokens> oldTokens =
      new Int2ObjectHashMap<>();

  /** Incarnation of each welcomed sequencer link (0: down or not welcomed yet); in ShardLogs. */
  private final Int2IntHashMap linkIncarnations;

  /**
   * The last incarnation that welcomed this process on each sequencer node, kept while the link is
   * down: a process asked before a later one welcomed this replica is gone
   * (docs/architecture.md#retention, "Abandoned records").
   */
  private final Int2IntHashMap lastWelcomed = new Int2IntHashMap(0);

  SyncPhase(
      ShardLogs shards,
      AppendSync appends,
      LogStorage storage,
      ReplicaRuntime runtime,
      ReplicaPublisher publisher,
      Runnable requestTurn,
      Consumer<ColorLog> onClosed,
      Trims trims,
      MeterRegistry registry) {
    this.shards = shards;
    this.trims = trims;
    this.runtime = runtime;
    this.linkIncarnations = shards.linkIncarnations();
    this.appends = appends;
    this.publisher = publisher;
    this.requestTurn = requestTurn;
    this.closedListener = onClosed;
    this.tokenSync = new TokenSync(this, runtime, publisher);
    this.rangeSync = new RangeSync(this, storage, runtime, publisher);
    String node = Integer.toString(shards.nodeId());
    FunctionCounter.builder("flexlog.replica.sync.ranges.started", rangeSync, RangeSync::started)
        .tag("node", node)
        .description("sync-phase fetches started to close blind ranges")
        .register(registry);
    FunctionCounter.builder("flexlog.replica.sync.ranges.closed", rangeSync, RangeSync::closed)
        .tag("node", node)
        .description("sync-phase fetches that closed the blind ranges of a (shard, color)")
        .register(registry);
    FunctionCounter.builder("flexlog.replica.sync.fills", rangeSync, RangeSync::fills)
        .tag("node", node)
        .description("fetches of a record assigned here that never arrived from its client")
        .register(registry);
    FunctionCounter.builder("flexlog.replica.sync.fetched", rangeSync, RangeSync::fetched)
        .tag("node", node)
        .description("records received from peers by the sync phase")
        .register(registry);
    FunctionCounter.builder(
            "flexlog.replica.sync.fetched.bytes", rangeSync, RangeSync::fetchedBytes)
        .tag("node", node)
        .description("payload bytes of the records received from peers by the sync phase")
        .register(registry);
    FunctionCounter.builder("flexlog.replica.sync.rounds", tokenSync, TokenSync::roundsStarted)
        .tag("node", node)
        .description("TOKEN_SYNC rounds started after a sequencer link came up")
        .register(registry);
    FunctionCounter.builder("flexlog.replica.sync.adopted", tokenSync, TokenSync::adopted)
        .tag("node", node)
        .description("pending tokens given the SN another replica of the shard already had")
        .register(registry);
    this.abandoned =
        Counter.builder("flexlog.replica.sync.abandoned")
            .tag("node", node)
            .description(
                "pending records given up after a token sync: no replica had an SN for them and no"
                    + " client sent them for half their color's retention.ms")
            .register(registry);
  }

  /** The other replicas, for the token sync; without them tokens are re-requested at once. */
  void peers(PeerGateway peers) {
    tokenSync.peers(peers);
    rangeSync.peers(peers);
  }

  /**
   * The sequencer node accepted this replica's HELLO (WELCOME from process {@code incarnation}):
   * for every shard attached through it, synchronise the unassigned pending tokens with the other
   * replicas of the shard, then request SNs for those no replica has one for.
   */
  void onLinkUp(int sequencerId, int incarnation) {
    shards.onWelcome(sequencerId);
    linkIncarnations.put(sequencerId, incarnation);
    lastWelcomed.put(sequencerId, incarnation);
    tokenSync.release();
    tokenSync.cancelRounds(sequencerId);
    for (Shard shard : shards.hosted()) {
      if (shards.sequencerOf(shard.id()) != sequencerId) {
        continue;
      }
      int[] peerIds = peersOf(shard);
      AppendSync.UnassignedTokens tokens = appends.unassigned(shard.id());
      if (tokens.count == 0) {
        oldTokens.remove(shard.id());
        continue;
      }
      oldTokens.put(shard.id(), tokens);
      if (peerIds.length == 0 || !tokenSync.enabled()) {
        appends.requestUnassigned(shard.id(), tokens.sessions, tokens.sequences, tokens.count);
      } else {
        LOG.info(
            "replica {} synchronises {} pending token(s) of shard {} with replica(s) {} before"
                + " asking sequencer {} (incarnation {}) for SNs",
            shards.nodeId(),
            tokens.count,
            shard.id(),
            Arrays.toString(peerIds),
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
    requestTurn.run();
  }

  /** The link to a sequencer broke: SNs assigned meanwhile may never reach this replica. */
  void onLinkLost(int sequencerId) {
    linkIncarnations.remove(sequencerId);
    appends.onLinkLost(sequencerId);
    rangeSync.cancel(sequencerId);
    tokenSync.cancelRounds(sequencerId);
    shards.onLinkLost(sequencerId);
    tokenSync.release();
    requestTurn.run();
  }

  /**
   * A newer topology moved the role of some hosted shards' colors to another leader (a failover:
   * another node, or the same node in a larger role epoch). For those shards it is as if the link
   * to the old leader broke, even when that node lives on (docs/architecture.md#fencing): its
   * answers are fenced from now on, and SNs it issued may have reached other replicas but not this
   * one. So order requests built for it are dropped, its sync rounds and fetches for the shard end,
   * and the shard's logs hold new tokens until the sync phase with the new leader has closed the
   * range this replica could not see; tokens are then synchronised with the peers before the new
   * leader is asked, so a token the old leader ordered keeps its SN.
   */
  void onRolesMoved(Topology before, Topology after) {
    boolean moved = false;
    for (Shard shard : shards.hosted()) {
      Color was = before.color(shard.colorId()).orElse(null);
      Color now = after.color(shard.colorId()).orElse(null);
      if (was == null || now == null || !RoleMoves.moved(was, now)) {
        continue;
      }
      LOG.info(
          "replica {}: the role of shard {} (color id {}) moved from sequencer node {} (epoch {})"
              + " to node {} (epoch {}); the shard resynchronises before it orders new tokens",
          shards.nodeId(),
          shard.id(),
          shard.colorId(),
          was.sequencerId(),
          was.roleEpoch(),
          now.sequencerId(),
          now.roleEpoch());
      appends.dropOrderBatches(shard.id());
      rangeSync.cancelShard(shard.id());
      tokenSync.cancelRoundsOf(shard.id());
      oldTokens.remove(shard.id());
      shards.onRoleMoved(shard.id());
      moved = true;
    }
    if (moved) {
      tokenSync.release();
      requestTurn.run();
    }
  }

  /** TOKEN_SYNC from another replica of one of this node's shards. */
  void onTokenSync(
      Connection c,
      long requestId,
      int shardId,
      int sequencerId,
      int incarnation,
      long[] sessions,
      long[] sequences) {
    if (!shards.hosts(shardId)) {
      publisher.error(
          c,
          requestId,
          ErrorCode.UNKNOWN_SHARD,
          "replica node " + shards.nodeId() + " does not host shard " + shardId);
      return;
    }
    tokenSync.onRequest(c, requestId, shardId, sequencerId, incarnation, sessions, sequences);
  }

  /** TOKEN_SYNC_RESPONSE from a peer. */
  void onTokenSyncResponse(long requestId, int fromNodeId, int count, TokenSync.SnSource sns) {
    tokenSync.onResponse(requestId, fromNodeId, count, sns);
    requestTurn.run();
  }

  /**
   * The end of a turn, after its commits are durable and indexed: orders the tokens that arrived
   * while a log was syncing (after a token sync with the peers), answers the turn's SYNC_FETCH
   * requests, closes the ranges of complete fetches and starts the fetches needed.
   */
  void afterCommits() {
    for (int i = 0; i < shards.logCount(); i++) {
      ColorLog log = shards.logAt(i);
      if (log.heldCount() > 0) {
        orderHeld(log);
      }
    }
    for (int i = 0; i < shards.logCount(); i++) {
      ColorLog log = shards.logAt(i);
      rangeSync.startIfNeeded(log);
      rangeSync.fillIfStuck(log);
    }
    rangeSync.afterCommits();
  }

  /**
   * Tokens that reached a syncing log: a peer may hold one at an SN this replica missed, so they go
   * through a token sync first, like the tokens pending when the link came up. While the link is
   * down they stay pending, and the next link-up synchronises them with the rest.
   */
  private void orderHeld(ColorLog log) {
    int sequencerId = shards.sequencerOf(log.shardId);
    int incarnation = linkIncarnations.get(sequencerId);
    int count = log.heldCount();
    long[] sessions = Arrays.copyOf(log.heldSessions(), count);
    long[] sequences = Arrays.copyOf(log.heldSequences(), count);
    log.clearHeld();
    if (incarnation == 0) {
      return;
    }
    int[] peerIds = peersOf(shards.shard(log.shardId));
    if (peerIds.length == 0 || !tokenSync.enabled()) {
      appends.requestUnassigned(log.shardId, sessions, sequences, count);
      // This runs after the turn's order requests went out: another turn sends these, without
      // waiting for some unrelated event to end one.
      requestTurn.run();
    } else {
      tokenSync.start(log.shardId, sequencerId, incarnation, peerIds, sessions, sequences, count);
    }
  }

  /** SYNC_FETCH from another replica of one of this node's shards. */
  void onSyncFetch(
      Connection c,
      long requestId,
      int shardId,
      int colorId,
      int sequencerId,
      int incarnation,
      long afterSn,
      long throughSn) {
    if (!shards.hosts(shardId) || !shards.knowsColor(colorId)) {
      publisher.error(
          c,
          requestId,
          ErrorCode.UNKNOWN_SHARD,
          "replica node "
              + shards.nodeId()
              + " does not host shard "
              + shardId
              + " of color id "
              + colorId);
      return;
    }
    rangeSync.onFetch(
        c, requestId, shards.log(shardId, colorId), sequencerId, incarnation, afterSn, throughSn);
    requestTurn.run();
  }

  /** SYNC_ENTRIES from a peer. */
  void onSyncEntries(long requestId, ByteBuf frame) {
    rangeSync.onEntries(requestId, frame);
    requestTurn.run();
  }

  // ---------------------------------------------------------------- RangeSync.Host

  @Override
  public int[] peersOf(int shardId) {
    return peersOf(shards.shard(shardId));
  }

  @Override
  public int sequencerOf(int shardId) {
    return shards.sequencerOf(shardId);
  }

  @Override
  public boolean settled(int shardId, int colorId, int sequencerId, int incarnation, long through) {
    if (!shards.hosts(shardId) || shards.sequencerOf(shardId) != sequencerId) {
      // This replica still takes the shard's order responses from another node (it has not seen
      // the topology that moved the role, or the asker has not): what it holds may still change.
      return false;
    }
    int mine = linkIncarnations.get(sequencerId);
    if (mine == 0 || mine < incarnation) {
      return false; // order responses of an older process may still reach this replica
    }
    if (shards.log(shardId, colorId).watermarkOnLink() < through) {
      return false; // responses with SNs up to through may still be on their way on this link
    }
    AppendSync.UnassignedTokens old = oldTokens.get(shardId);
    if (old == null) {
      return true;
    }
    for (int i = 0; i < old.count; i++) {
      if (appends.isUnassigned(old.sessions[i], old.sequences[i])) {
        return false;
      }
    }
    oldTokens.remove(shardId);
    return true;
  }

  @Override
  public boolean install(
      int shardId, int colorId, long session, long sequence, long sn, ByteBuf payload) {
    return appends.installFetched(shardId, colorId, session, sequence, sn, payload);
  }

  @Override
  public void closed(ColorLog log, long from, long through, long records, long bytes) {
    LOG.info(
        "replica {}: shard {} color id {} synchronised with its peers; blind SNs up to {} are"
            + " decided (range {}..{}: fetched {} records, {} bytes)",
        shards.nodeId(),
        log.shardId,
        log.colorId,
        Sn.describe(log.committedThrough()),
        Sn.describe(from),
        Sn.describe(through),
        records,
        bytes);
    closedListener.accept(log);
    requestTurn.run();
  }

  @Override
  public void trimmedByPeer(ColorLog log, long peerTrimPoint, int peerNodeId, long awaitedSn) {
    if (trims.adoptPeerTrim(log.colorId, peerTrimPoint, peerNodeId, awaitedSn)) {
      requestTurn.run();
    }
  }

  @Override
  public void requestTurn() {
    requestTurn.run();
  }

  private int[] peersOf(Shard shard) {
    return shard.replicaNodeIds().stream()
        .mapToInt(Integer::intValue)
        .filter(id -> id != shards.nodeId())
        .toArray();
  }

  // ---------------------------------------------------------------- TokenSync.Host

  @Override
  public int nodeId() {
    return shards.nodeId();
  }

  @Override
  public int linkIncarnation(int sequencerId) {
    return linkIncarnations.get(sequencerId);
  }

  @Override
  public int leaderOf(int shardId) {
    return shards.hosts(shardId) ? shards.sequencerOf(shardId) : -1;
  }

  @Override
  public void answer(Connection c, long requestId, int shardId, long[] sessions, long[] sequences) {
    publisher.tokenSyncResponse(c, requestId, shardId, sessions, sequences, appends::knownSn);
  }

  @Override
  public void adopt(int shardId, long session, long sequence, long sn, int fromNodeId) {
    long mine = appends.adopt(session, sequence, sn);
    if (mine != Sn.NONE && mine != sn) {
      LOG.error(
          "replica {}: shard {} holds one token at two SNs: {} here, {} on replica {}",
          shards.nodeId(),
          shardId,
          Sn.describe(mine),
          Sn.describe(sn),
          fromNodeId);
    }
  }

  @Override
  public void complete(int shardId, long[] sessions, long[] sequences, int count) {
    int abandoned =
        appends.requestOrAbandon(
            shardId, sessions, sequences, count, lastWelcomed, runtime.nanoTime());
    if (abandoned > 0) {
      this.abandoned.increment(abandoned);
      LOG.warn(
          "replica {}: shard {}: abandoned {} record(s) that no replica has an SN for and no client"
              + " sent for half their color's retention.ms or more (ordering them could give a"
              + " record trimmed elsewhere a second SN; their clients have given up on them)",
          shards.nodeId(),
          shardId,
          abandoned);
    }
    requestTurn.run();
  }
}
