package io.flexlog.replica.replication;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Arrays;
import org.agrona.collections.Int2IntHashMap;
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
final class SyncPhase implements TokenSync.Host {
  private static final Logger LOG = LoggerFactory.getLogger(SyncPhase.class);

  private final ShardLogs shards;
  private final AppendPath appends;
  private final ReplicaPublisher publisher;
  private final Runnable requestTurn;
  private final TokenSync tokenSync;

  /** Incarnation of each welcomed sequencer link (0: down or not welcomed yet). */
  private final Int2IntHashMap linkIncarnations = new Int2IntHashMap(0);

  SyncPhase(
      ShardLogs shards,
      AppendPath appends,
      ReplicaRuntime runtime,
      ReplicaPublisher publisher,
      Runnable requestTurn,
      MeterRegistry registry) {
    this.shards = shards;
    this.appends = appends;
    this.publisher = publisher;
    this.requestTurn = requestTurn;
    this.tokenSync = new TokenSync(this, runtime, publisher);
    String node = Integer.toString(shards.nodeId());
    FunctionCounter.builder("flexlog.replica.sync.rounds", tokenSync, TokenSync::roundsStarted)
        .tag("node", node)
        .description("TOKEN_SYNC rounds started after a sequencer link came up")
        .register(registry);
    FunctionCounter.builder("flexlog.replica.sync.adopted", tokenSync, TokenSync::adopted)
        .tag("node", node)
        .description("pending tokens given the SN another replica of the shard already had")
        .register(registry);
  }

  /** The other replicas, for the token sync; without them tokens are re-requested at once. */
  void peers(PeerGateway peers) {
    tokenSync.peers(peers);
  }

  /**
   * The sequencer node accepted this replica's HELLO (WELCOME from process {@code incarnation}):
   * for every shard attached through it, synchronise the unassigned pending tokens with the other
   * replicas of the shard, then request SNs for those no replica has one for.
   */
  void onLinkUp(int sequencerId, int incarnation) {
    linkIncarnations.put(sequencerId, incarnation);
    tokenSync.release(sequencerId);
    tokenSync.cancelRounds(sequencerId);
    for (Shard shard : shards.hosted()) {
      if (shards.sequencerOf(shard.id()) != sequencerId) {
        continue;
      }
      int[] peerIds = peersOf(shard);
      AppendPath.UnassignedTokens tokens = appends.unassigned(shard.id());
      if (tokens.count == 0) {
        continue;
      }
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
    tokenSync.cancelRounds(sequencerId);
    tokenSync.release(sequencerId);
    shards.onLinkLost(sequencerId);
    requestTurn.run();
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
    appends.requestUnassigned(shardId, sessions, sequences, count);
    requestTurn.run();
  }
}
