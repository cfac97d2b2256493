package io.flexlog.replica.replication;

import io.flexlog.core.model.Retention;
import io.flexlog.core.model.Sn;
import io.flexlog.core.util.TokenLongMap;
import io.flexlog.core.util.TokenWindow;
import io.flexlog.replica.index.SnIndex;
import io.flexlog.replica.storage.LogStorage;
import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.agrona.collections.Int2IntHashMap;

/**
 * The append path's side of the sync phase (docs/architecture.md#sync-phase): what {@link
 * SyncPhase} and {@link TokenSync} ask of the tokens this replica holds. It answers which SN a
 * token has here ({@link #knownSn}), adopts the SNs peers report ({@link #adopt}), installs the
 * records the sync phase fetched ({@link #installFetched}), collects and re-orders the tokens still
 * waiting for an SN, and drops the turn's order requests of a lost sequencer link ({@link
 * #onLinkLost}) or of a shard whose role moved ({@link #dropOrderBatches}).
 *
 * <p>It owns no state of its own: the pending records, the committed and early SNs and the turn's
 * order requests belong to the {@link AppendPath}, and a commit made here goes through the append
 * path's commit, so it is published and acknowledged at the end of the turn like any other.
 * Threading: the replica's event loop.
 */
final class AppendSync {
  private final ShardLogs shards;
  private final LogStorage storage;
  private final AppendPath appends;
  private final PendingAppends pending;
  private final TokenWindow committedTokens;
  private final TokenLongMap earlyAssignments;
  private final Runnable requestTurn;

  AppendSync(ShardLogs shards, LogStorage storage, AppendPath appends, Runnable requestTurn) {
    this.shards = shards;
    this.storage = storage;
    this.appends = appends;
    this.pending = appends.pending();
    this.committedTokens = appends.committedTokens();
    this.earlyAssignments = appends.earlyAssignments();
    this.requestTurn = requestTurn;
  }

  /** The SN this replica knows for a token: committed, assigned this turn, or assigned early. */
  long knownSn(long session, long sequence) {
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

  /**
   * Another replica of the shard has SN {@code sn} for a token: commits it here if this replica
   * holds it pending without one.
   *
   * @return the SN this replica had for the token, {@link Sn#NONE} if none
   */
  long adopt(long session, long sequence, long sn) {
    int slot = pending.find(session, sequence);
    long mine = slot != PendingAppends.NONE ? pending.sn(slot) : knownSn(session, sequence);
    if (mine == Sn.NONE && slot != PendingAppends.NONE) {
      appends.commit(slot, sn);
    }
    return mine;
  }

  /** True while the token is stored here without an SN (the sync phase waits for those). */
  boolean isUnassigned(long session, long sequence) {
    int slot = pending.find(session, sequence);
    return slot != PendingAppends.NONE && pending.sn(slot) == Sn.NONE;
  }

  /**
   * A record a peer committed at {@code sn}, fetched by the sync phase: commits this replica's
   * pending copy at the same SN, or stores the record as committed here.
   *
   * @return false if the log has no room for it (fetch it again later)
   */
  boolean installFetched(
      int shardId, int colorId, long session, long sequence, long sn, ByteBuf payload) {
    long committed = committedTokens.get(session, sequence);
    if (committed != Sn.NONE || sn <= storage.trimPoint(colorId)) {
      return true; // known here (a different SN is reported by the token sync's check)
    }
    ColorLog log = shards.log(shardId, colorId);
    if (log.index.address(sn) != SnIndex.NOT_FOUND) {
      return true;
    }
    int slot = pending.find(session, sequence);
    if (slot != PendingAppends.NONE) {
      if (pending.sn(slot) == Sn.NONE) {
        appends.commit(slot, sn);
      }
      return true;
    }
    long address = storage.appendPending(shardId, colorId, session, sequence, payload);
    if (address == LogStorage.NO_SPACE) {
      return false;
    }
    earlyAssignments.remove(session, sequence);
    appends.commit(pending.add(session, sequence, address, shardId, colorId), sn);
    requestTurn.run();
    return true;
  }

  /** Puts the still unassigned ones of the given tokens into the turn's order requests. */
  void requestUnassigned(int shardId, long[] sessions, long[] sequences, int count) {
    int sequencerId = shards.sequencerOf(shardId);
    int incarnation = shards.linkIncarnations().get(sequencerId);
    for (int i = 0; i < count; i++) {
      int slot = pending.find(sessions[i], sequences[i]);
      if (slot != PendingAppends.NONE && pending.sn(slot) == Sn.NONE) {
        appends.batch(shardId, pending.color(slot)).add(sessions[i], sequences[i]);
        pending.asked(slot, sequencerId, incarnation);
      }
    }
  }

  /**
   * After a token sync in which no peer had an SN for the given tokens: puts the still unassigned
   * ones into the turn's order requests, except those a replica must no longer order
   * (docs/architecture.md#retention, "Abandoned records"). A record of a color with a {@code
   * retention.ms} that no client sent for half of it may have been ordered and committed elsewhere
   * and then removed by retention, so that no peer knows its token any more: ordering it again
   * would give it a second SN. Its client has given up on it (a client retries for at most half the
   * retention), so the record is abandoned: dead in the log, never ordered.
   *
   * <p>Only where no SN for it can still turn up, or a peer that received one without the record
   * would wait for it forever: this process never asked a sequencer for it, or asked exactly one
   * sequencer process that has since been replaced ({@code lastWelcomed}, per sequencer node, is a
   * later incarnation). A process that lives on may take the role again (a lease that expired and
   * came back) and its late answers with it. A record recovered from the log is never abandoned:
   * the process before the restart may have asked a sequencer process that lives on.
   *
   * @return how many records were abandoned
   */
  int requestOrAbandon(
      int shardId,
      long[] sessions,
      long[] sequences,
      int count,
      Int2IntHashMap lastWelcomed,
      long nowNs) {
    int sequencerId = shards.sequencerOf(shardId);
    int incarnation = shards.linkIncarnations().get(sequencerId);
    int dropped = 0;
    for (int i = 0; i < count; i++) {
      int slot = pending.find(sessions[i], sequences[i]);
      if (slot == PendingAppends.NONE || pending.sn(slot) != Sn.NONE) {
        continue;
      }
      int colorId = pending.color(slot);
      if (!pending.recovered(slot)
          && noAnswerCanCome(slot, lastWelcomed)
          && mayHaveOutlivedRetention(colorId, pending.seenNs(slot), nowNs)) {
        storage.abandon(pending.address(slot));
        pending.remove(slot);
        dropped++;
      } else {
        appends.batch(shardId, colorId).add(sessions[i], sequences[i]);
        pending.asked(slot, sequencerId, incarnation);
      }
    }
    if (dropped > 0) {
      requestTurn.run(); // the turn's flush makes the abandonment durable
    }
    return dropped;
  }

  private boolean noAnswerCanCome(int slot, Int2IntHashMap lastWelcomed) {
    int asked = pending.askedSequencer(slot);
    if (asked == PendingAppends.NOT_ASKED) {
      return true;
    }
    return asked >= 0 && lastWelcomed.get(asked) != pending.askedIncarnation(slot);
  }

  private boolean mayHaveOutlivedRetention(int colorId, long seenNs, long nowNs) {
    long retentionMs =
        shards.topology().color(colorId).map(c -> c.retention().ms()).orElse(Retention.KEEP);
    if (retentionMs < 0) {
      return false;
    }
    return nowNs - seenNs >= TimeUnit.MILLISECONDS.toNanos(retentionMs) / 2;
  }

  /** The tokens of a shard still waiting for their SN. */
  UnassignedTokens unassigned(int shardId) {
    UnassignedTokens tokens = new UnassignedTokens(shardId);
    pending.forEachUnassigned(tokens);
    return tokens;
  }

  /** Collects the unassigned pending tokens of one shard. */
  final class UnassignedTokens implements PendingAppends.SlotVisitor {
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
        sessions = Arrays.copyOf(sessions, count * 2);
        sequences = Arrays.copyOf(sequences, count * 2);
      }
      sessions[count] = pending.tokenSession(slot);
      sequences[count] = pending.tokenSequence(slot);
      count++;
    }
  }

  /** Drops the order requests of this turn built for a shard whose role moved. */
  void dropOrderBatches(int shardId) {
    List<OrderRequestBatch> activeBatches = appends.activeBatches();
    for (int i = activeBatches.size() - 1; i >= 0; i--) {
      OrderRequestBatch batch = activeBatches.get(i);
      if (batch.shardId == shardId) {
        batch.clear();
        activeBatches.remove(i);
      }
    }
  }

  /**
   * The link to a sequencer broke: the turn's order requests for the shards attached through it are
   * dropped, never sent on the next link (which may reach a new process). Their tokens stay pending
   * without an SN and go through the token sync when the link comes up again.
   */
  void onLinkLost(int sequencerId) {
    List<OrderRequestBatch> activeBatches = appends.activeBatches();
    for (int i = activeBatches.size() - 1; i >= 0; i--) {
      OrderRequestBatch batch = activeBatches.get(i);
      if (shards.sequencerOf(batch.shardId) == sequencerId) {
        batch.clear();
        activeBatches.remove(i);
      }
    }
  }
}
