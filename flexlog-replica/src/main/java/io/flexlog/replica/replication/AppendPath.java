package io.flexlog.replica.replication;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.util.TokenLongMap;
import io.flexlog.replica.storage.LogStorage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * The append path of one replica (paper Alg. 1, docs/architecture.md): an APPEND is stored as
 * pending, its token goes into the turn's ORDER_REQUEST of its (shard, color), the SN the sequencer
 * assigns commits it, and the commit is acknowledged once durable.
 *
 * <p>Per token it answers exactly once with one SN: a retried append of a committed token gets the
 * committed SN again (within the dedup window), a retry of a pending one just replaces the
 * connection to acknowledge, and an SN that arrives before its record is kept as an early
 * assignment that commits the record on arrival.
 *
 * <p>Nothing allocates per record once the pools have grown: pending slots, the turn's order
 * batches and committed slots are reused across turns. Threading: the replica's event loop.
 */
final class AppendPath {
  private final ShardLogs shards;
  private final LogStorage storage;
  private final ReplicaLimits limits;
  private final SequencerGateway sequencers;
  private final ReplicaPublisher publisher;
  private final Runnable requestTurn;

  private final PendingAppends pending = new PendingAppends();
  private final TokenLongMap committedTokens;
  private final TokenLongMap earlyAssignments = new TokenLongMap(64, Sn.NONE);
  private final Long2ObjectHashMap<OrderRequestBatch> batches = new Long2ObjectHashMap<>();
  private final List<OrderRequestBatch> activeBatches = new ArrayList<>();
  private int[] committedSlots = new int[64];
  private int committedCount;

  private final Counter appends;
  private final Counter duplicateAppends;
  private final DistributionSummary commitBatch;
  private final ReplicaRuntime runtime;
  private final ColorMeters colorMeters;

  AppendPath(
      ShardLogs shards,
      LogStorage storage,
      ReplicaLimits limits,
      SequencerGateway sequencers,
      ReplicaPublisher publisher,
      Runnable requestTurn,
      Clocked clocked,
      MeterRegistry registry) {
    this.shards = shards;
    this.runtime = clocked.runtime();
    this.colorMeters = clocked.meters();
    this.storage = storage;
    this.limits = limits;
    this.sequencers = sequencers;
    this.publisher = publisher;
    this.requestTurn = requestTurn;
    this.committedTokens = new TokenLongMap(1024, Sn.NONE, limits.dedupWindow());
    String node = Integer.toString(shards.nodeId());
    appends =
        Counter.builder("flexlog.replica.appends")
            .tag("node", node)
            .description("APPEND frames accepted (duplicates included)")
            .register(registry);
    duplicateAppends =
        Counter.builder("flexlog.replica.appends.duplicate")
            .tag("node", node)
            .description("appends whose token was already pending or committed here (retries)")
            .register(registry);
    commitBatch =
        DistributionSummary.builder("flexlog.replica.commit.batch")
            .tag("node", node)
            .description("commits per event-loop turn")
            .register(registry);
    Gauge.builder("flexlog.replica.pending", pending, PendingAppends::size)
        .tag("node", node)
        .description("appends stored here and waiting for their SN")
        .register(registry);
  }

  /** The clock that latencies are measured on and the meters they go to. */
  record Clocked(ReplicaRuntime runtime, ColorMeters meters) {}

  /** A record entry found by recovery: committed (readable) or pending (waits for its SN). */
  void onRecoveredEntry(
      long address, int shardId, int colorId, long session, long sequence, long sn) {
    if (sn != Sn.NONE) {
      shards.log(shardId, colorId).index.add(sn, address);
      committedTokens.put(session, sequence, sn);
    } else {
      pending.add(session, sequence, address, shardId, colorId);
    }
  }

  /** APPEND: stores the record as pending and asks for its SN, or answers a retry. */
  void onAppend(
      Connection c,
      long requestId,
      long session,
      long sequence,
      int colorId,
      int shardId,
      ByteBuf payload) {
    if (!checkAppend(c, requestId, shardId, colorId, payload.readableBytes())) {
      return;
    }
    appends.increment();
    long committedSn = committedTokens.get(session, sequence);
    if (committedSn != Sn.NONE) {
      duplicateAppends.increment();
      publisher.ack(c, requestId, session, sequence, committedSn, colorId);
      return;
    }
    int slot = pending.find(session, sequence);
    if (slot != PendingAppends.NONE) {
      duplicateAppends.increment();
      pending.setWaiter(slot, c, requestId);
      return;
    }
    long address = storage.appendPending(shardId, colorId, session, sequence, payload);
    if (address == LogStorage.NO_SPACE) {
      publisher.error(
          c,
          requestId,
          ErrorCode.STORAGE_FULL,
          "replica "
              + shards.nodeId()
              + " has no log space left ("
              + storage.capacityBytes()
              + " bytes)");
      return;
    }
    slot = pending.add(session, sequence, address, shardId, colorId);
    pending.setWaiter(slot, c, requestId);
    pending.setArrivalNs(slot, runtime.nanoTime());
    colorMeters.appended(colorId, payload.readableBytes());
    long early = earlyAssignments.remove(session, sequence);
    if (early != Sn.NONE) {
      commit(slot, early);
    } else {
      batch(shardId, colorId).add(session, sequence);
    }
    requestTurn.run();
  }

  private boolean checkAppend(Connection c, long requestId, int shardId, int colorId, int length) {
    Shard shard = shards.shard(shardId);
    if (!shards.knowsColor(colorId)) {
      publisher.error(c, requestId, ErrorCode.UNKNOWN_COLOR, "unknown color id " + colorId);
      return false;
    }
    if (shard == null) {
      publisher.error(
          c,
          requestId,
          ErrorCode.UNKNOWN_SHARD,
          "replica node " + shards.nodeId() + " does not host shard " + shardId);
      return false;
    }
    if (!shards.topology().isInSubtree(shard.colorId(), colorId)) {
      publisher.error(
          c,
          requestId,
          ErrorCode.INVALID_ARGUMENT,
          "shard " + shardId + " is not in the subtree of color id " + colorId);
      return false;
    }
    if (length > limits.maxRecordBytes()) {
      publisher.error(
          c,
          requestId,
          ErrorCode.RECORD_TOO_LARGE,
          "record of " + length + " bytes exceeds max-record-bytes=" + limits.maxRecordBytes());
      return false;
    }
    return true;
  }

  /**
   * One entry of an ORDER_RESPONSE: commits the pending token, or keeps the SN as an early
   * assignment until the record arrives (and holds the log's {@code committedThrough} below it).
   */
  void onAssigned(int shardId, int colorId, long session, long sequence, long sn) {
    int slot = pending.find(session, sequence);
    if (slot != PendingAppends.NONE) {
      if (pending.sn(slot) == Sn.NONE) {
        commit(slot, sn);
      }
    } else if (committedTokens.get(session, sequence) == Sn.NONE) {
      earlyAssignments.put(session, sequence, sn);
      shards.log(shardId, colorId).awaitRecord(sn);
    }
  }

  // ---------------------------------------------------------------- token sync support

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
      commit(slot, sn);
    }
    return mine;
  }

  /** Puts the still unassigned ones of the given tokens into the turn's order requests. */
  void requestUnassigned(int shardId, long[] sessions, long[] sequences, int count) {
    for (int i = 0; i < count; i++) {
      int slot = pending.find(sessions[i], sequences[i]);
      if (slot != PendingAppends.NONE && pending.sn(slot) == Sn.NONE) {
        batch(shardId, pending.color(slot)).add(sessions[i], sequences[i]);
      }
    }
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

  // ---------------------------------------------------------------- the end of a turn

  /** Sends the turn's ORDER_REQUESTs, one per (shard, color); call once the log is flushed. */
  void sendOrderRequests() {
    if (activeBatches.isEmpty()) {
      return;
    }
    for (OrderRequestBatch batch : activeBatches) {
      sequencers.send(batch, shards.nodeId());
      batch.clear();
    }
    activeBatches.clear();
    sequencers.flush();
  }

  /**
   * Makes the turn's commits readable and acknowledges them; call once the log is flushed, so that
   * an ack is only sent for a durable commit.
   */
  void publishCommits() {
    if (committedCount > 0) {
      commitBatch.record(committedCount);
    }
    for (int i = 0; i < committedCount; i++) {
      int slot = committedSlots[i];
      long sn = pending.sn(slot);
      long session = pending.tokenSession(slot);
      long sequence = pending.tokenSequence(slot);
      ColorLog log = shards.log(pending.shard(slot), pending.color(slot));
      log.index.add(sn, pending.address(slot));
      log.recordArrived(sn);
      committedTokens.put(session, sequence, sn);
      Connection waiter = pending.waiter(slot);
      if (waiter != null) {
        publisher.ack(
            waiter, pending.waiterRequestId(slot), session, sequence, sn, pending.color(slot));
        long arrival = pending.arrivalNs(slot);
        if (arrival != 0) {
          colorMeters.appendLatency(runtime.nanoTime() - arrival);
        }
      }
      pending.remove(slot);
    }
    committedCount = 0;
  }

  private void commit(int slot, long sn) {
    long arrival = pending.arrivalNs(slot);
    if (arrival != 0) {
      colorMeters.orderLatency(runtime.nanoTime() - arrival);
    }
    storage.commit(pending.address(slot), sn);
    pending.setSn(slot, sn);
    if (committedCount == committedSlots.length) {
      committedSlots = Arrays.copyOf(committedSlots, committedCount * 2);
    }
    committedSlots[committedCount++] = slot;
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
}
