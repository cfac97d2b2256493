package io.flexlog.replica.replication;

import io.flexlog.core.protocol.TokenSyncDescriptor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.agrona.collections.IntHashSet;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * The token sync of docs/architecture.md#token-sync, the part of the sync phase that keeps the
 * replicas of a shard from committing one record at two SNs.
 *
 * <p>The hazard: a sequencer process assigns SN {@code x} to a token and dies while broadcasting
 * the ORDER_RESPONSE, so one replica commits {@code x} while another still holds the token as
 * pending. The restarted process (or, for a replica that restarted, a sequencer beyond its
 * deduplication window) has forgotten {@code x} and would assign a second SN. So when a replica's
 * sequencer link comes up (WELCOME), it does not re-request its pending tokens at once: it first
 * asks every other replica of the shard (TOKEN_SYNC) which of them already have an SN there, adopts
 * those SNs, and re-requests only the tokens no replica has an SN for, once every peer answered.
 *
 * <p>A peer answers only when no ORDER_RESPONSE of an earlier sequencer process can still reach it:
 * its own link to that sequencer is down, not yet welcomed, or welcomed by a process at least as
 * recent as the asker's, and its topology names the asker's sequencer as the shard's role leader.
 * Otherwise (it is still connected to the dead process and has not noticed, or still takes the
 * shard's order responses from another leader) the answer waits until that changes. A link is only
 * ever re-established after the previous connection closed and its frames were processed, so an
 * answer of "no SN" is final.
 *
 * <p>Not covered: a record that reaches a replica only after that replica synchronised (it was
 * down, or its client connection broken, when the sequencer died) is requested from the new process
 * directly. The client then sees two SNs for one append and fails it with an error that says so.
 *
 * <p>Threading: confined to the engine's event loop.
 */
final class TokenSync {
  /** Request ids of TOKEN_SYNC frames; disjoint from the atomic forwarder's (client tokens). */
  static final long REQUEST_ID_BASE = 1L << 62;

  /** How often unanswered TOKEN_SYNC requests are sent again (peer down, frame dropped). */
  static final long RETRY_MS = 200;

  /** The engine side of the sync. */
  interface Host {
    int nodeId();

    /** The incarnation of the current welcomed link to the sequencer node, or 0. */
    int linkIncarnation(int sequencerId);

    /** The node this replica takes the shard's order responses from (its role's leader), or -1. */
    int leaderOf(int shardId);

    /** Answers one TOKEN_SYNC now (the engine writes the response). */
    void answer(Connection c, long requestId, int shardId, long[] sessions, long[] sequences);

    /** A peer knows SN {@code sn} for a token this replica holds pending. */
    void adopt(int shardId, long session, long sequence, long sn, int fromNodeId);

    /** Every peer answered: request SNs for the tokens still unassigned. */
    void complete(int shardId, long[] sessions, long[] sequences, int count);
  }

  private final Host host;
  private final ReplicaRuntime runtime;
  private final ReplicaPublisher publisher;
  private PeerGateway peers;
  private final Long2ObjectHashMap<Round> rounds = new Long2ObjectHashMap<>();
  private final List<Deferred> deferred = new ArrayList<>();
  private long nextRequestId = REQUEST_ID_BASE;
  private long roundsStarted;
  private long adopted;

  TokenSync(Host host, ReplicaRuntime runtime, ReplicaPublisher publisher) {
    this.host = host;
    this.runtime = runtime;
    this.publisher = publisher;
  }

  void peers(PeerGateway peers) {
    this.peers = peers;
  }

  boolean enabled() {
    return peers != null;
  }

  long roundsStarted() {
    return roundsStarted;
  }

  long adopted() {
    return adopted;
  }

  int openRounds() {
    return rounds.size();
  }

  int deferredRequests() {
    return deferred.size();
  }

  // ---------------------------------------------------------------- asking

  /**
   * Asks {@code peerIds} about {@code count} pending tokens of a shard; more than {@link
   * TokenSyncDescriptor#MAX_TOKENS} go in several rounds.
   */
  void start(
      int shardId,
      int sequencerId,
      int incarnation,
      int[] peerIds,
      long[] sessions,
      long[] sequences,
      int count) {
    for (int from = 0; from < count; from += TokenSyncDescriptor.MAX_TOKENS) {
      int to = Math.min(count, from + TokenSyncDescriptor.MAX_TOKENS);
      Round round =
          new Round(
              nextRequestId++,
              shardId,
              sequencerId,
              incarnation,
              Arrays.copyOfRange(sessions, from, to),
              Arrays.copyOfRange(sequences, from, to));
      for (int peer : peerIds) {
        round.awaiting.add(peer);
      }
      rounds.put(round.requestId, round);
      roundsStarted++;
      send(round);
    }
    peers.flush();
  }

  /** Ends the rounds of one shard (its role moved; they restart against the new leader). */
  void cancelRoundsOf(int shardId) {
    rounds
        .values()
        .removeIf(
            round -> {
              if (round.shardId != shardId) {
                return false;
              }
              round.cancelRetry();
              return true;
            });
  }

  /** The link to a sequencer came up again or broke: its earlier rounds are void. */
  void cancelRounds(int sequencerId) {
    rounds
        .values()
        .removeIf(
            round -> {
              if (round.sequencerId != sequencerId) {
                return false;
              }
              round.cancelRetry();
              return true;
            });
  }

  void onResponse(long requestId, int fromNodeId, int count, SnSource sns) {
    Round round = rounds.get(requestId);
    if (round == null || !round.awaiting.contains(fromNodeId)) {
      return; // a duplicate answer or one to a cancelled round
    }
    int n = Math.min(count, round.sessions.length);
    for (int i = 0; i < n; i++) {
      long sn = sns.sn(i);
      if (sn != 0) {
        adopted++;
        host.adopt(round.shardId, round.sessions[i], round.sequences[i], sn, fromNodeId);
      }
    }
    round.awaiting.remove(fromNodeId);
    if (round.awaiting.isEmpty()) {
      rounds.remove(requestId);
      round.cancelRetry();
      host.complete(round.shardId, round.sessions, round.sequences, round.sessions.length);
    }
  }

  /** Reads the i-th SN of a response without copying it out of the frame. */
  @FunctionalInterface
  interface SnSource {
    long sn(int index);
  }

  private void send(Round round) {
    for (int peer : round.awaiting) {
      publisher.tokenSync(
          peers,
          peer,
          round.requestId,
          round.shardId,
          round.sequencerId,
          round.incarnation,
          round.sessions,
          round.sequences);
    }
    round.retry =
        runtime.schedule(
            () -> {
              if (rounds.get(round.requestId) == round) {
                send(round);
                peers.flush();
              }
            },
            TimeUnit.MILLISECONDS.toNanos(RETRY_MS));
  }

  // ---------------------------------------------------------------- answering

  /**
   * A TOKEN_SYNC from a peer: answered now, or deferred while this replica is still connected to a
   * sequencer process older than the one the asker reached.
   */
  void onRequest(
      Connection c,
      long requestId,
      int shardId,
      int sequencerId,
      int incarnation,
      long[] sessions,
      long[] sequences) {
    if (mustWait(shardId, sequencerId, incarnation)) {
      deferred.add(
          new Deferred(c, requestId, shardId, sequencerId, incarnation, sessions, sequences));
      return;
    }
    host.answer(c, requestId, shardId, sessions, sequences);
  }

  /**
   * An answer of "no SN" must be final: this replica must not take an order response for the shard
   * from anyone but the asker's sequencer process or a later one. So it waits while its own link to
   * that sequencer reached an older process, and while it takes the shard's order responses from
   * another node (its topology names another role leader than the asker's:
   * docs/architecture.md#fencing).
   */
  private boolean mustWait(int shardId, int sequencerId, int incarnation) {
    if (host.leaderOf(shardId) != sequencerId) {
      return true;
    }
    int mine = host.linkIncarnation(sequencerId);
    return mine != 0 && mine < incarnation;
  }

  /**
   * A sequencer link broke or was welcomed again, or a role moved: answers the requests that no
   * longer have to wait (and drops those of closed connections).
   */
  void release() {
    for (int i = 0; i < deferred.size(); ) {
      Deferred d = deferred.get(i);
      if (!d.connection.isActive()) {
        deferred.remove(i);
      } else if (!mustWait(d.shardId, d.sequencerId, d.incarnation)) {
        deferred.remove(i);
        host.answer(d.connection, d.requestId, d.shardId, d.sessions, d.sequences);
      } else {
        i++;
      }
    }
  }

  private static final class Round {
    final long requestId;
    final int shardId;
    final int sequencerId;
    final int incarnation;
    final long[] sessions;
    final long[] sequences;
    final IntHashSet awaiting = new IntHashSet();
    ReplicaRuntime.Timer retry;

    Round(
        long requestId,
        int shardId,
        int sequencerId,
        int incarnation,
        long[] sessions,
        long[] sequences) {
      this.requestId = requestId;
      this.shardId = shardId;
      this.sequencerId = sequencerId;
      this.incarnation = incarnation;
      this.sessions = sessions;
      this.sequences = sequences;
    }

    void cancelRetry() {
      if (retry != null) {
        retry.cancel();
      }
    }
  }

  private record Deferred(
      Connection connection,
      long requestId,
      int shardId,
      int sequencerId,
      int incarnation,
      long[] sessions,
      long[] sequences) {}
}
