package io.flexlog.replica.replication;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.protocol.AppendBatchDescriptor;
import io.flexlog.core.util.TokenLongMap;
import io.flexlog.core.util.TokenWindow;
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
 * assigns commits it, and the commit is acknowledged once durable. Each record of an APPEND_BATCH
 * takes the same path under its own token; the batch is acknowledged in one APPEND_BATCH_ACK per
 * turn (docs/architecture.md#batched-append).
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
  private final BatchOutcomes outcomes = new BatchOutcomes();
  private final TokenWindow committedTokens;
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
    this.committedTokens = new TokenWindow(limits.dedupWindow(), Sn.NONE);
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
      pending.setRecovered(pending.add(session, sequence, address, shardId, colorId));
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
    long now = runtime.nanoTime();
    if (slot != PendingAppends.NONE) {
      duplicateAppends.increment();
      pending.setWaiter(slot, c, requestId);
      pending.setSeenNs(slot, now);
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
    pending.setArrivalNs(slot, now);
    pending.setSeenNs(slot, now);
    colorMeters.appended(colorId, payload.readableBytes());
    long early = earlyAssignments.remove(session, sequence);
    if (early != Sn.NONE) {
      commit(slot, early);
    } else {
      order(slot, shardId, colorId, session, sequence);
    }
    requestTurn.run();
  }

  /**
   * Puts a new token into the turn's order request, or, while its log is syncing, holds it for a
   * token sync first: a peer may hold it at an SN this replica missed (docs/architecture.md).
   */
  private void order(int slot, int shardId, int colorId, long session, long sequence) {
    ColorLog log = shards.log(shardId, colorId);
    if (log.syncing()) {
      log.hold(session, sequence);
    } else {
      batch(shardId, colorId).add(session, sequence);
      pending.asked(slot, log.orderingSequencer(), log.orderingIncarnation());
    }
  }

  private boolean checkAppend(Connection c, long requestId, int shardId, int colorId, int length) {
    if (!checkTarget(c, requestId, shardId, colorId)) {
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

  /** Checks the color and shard of an APPEND or APPEND_BATCH; answers an ERROR if they are off. */
  private boolean checkTarget(Connection c, long requestId, int shardId, int colorId) {
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
    return true;
  }

  /**
   * APPEND_BATCH: each record goes the way of one APPEND under its own token (stored as pending in
   * this turn, so the turn's one flush and one ORDER_REQUEST per (shard, color) cover the batch),
   * and the batch is acknowledged in one APPEND_BATCH_ACK per turn. Records already committed are
   * acknowledged at once with their SN; a record over the size limit or beyond the log's space is
   * refused alone, in the same kind of frame.
   */
  void onAppendBatch(Connection c, long requestId, ByteBuf frame) {
    int colorId = AppendBatchDescriptor.colorId(frame);
    int shardId = AppendBatchDescriptor.shardId(frame);
    if (!checkTarget(c, requestId, shardId, colorId)) {
      return;
    }
    long session = AppendBatchDescriptor.tokenSession(frame);
    int count = AppendBatchDescriptor.count(frame);
    int at = AppendBatchDescriptor.payloadsStart(frame);
    long now = runtime.nanoTime();
    outcomes.clear();
    for (int i = 0; i < count; i++) {
      long sequence = AppendBatchDescriptor.tokenSequence(frame, i);
      int length = AppendBatchDescriptor.payloadLength(frame, i);
      storeBatched(c, requestId, session, sequence, colorId, shardId, frame, at, length, now);
      at += length;
    }
    if (outcomes.count() > 0) {
      publisher.ackBatch(c, requestId, session, colorId, outcomes);
    }
    requestTurn.run();
  }

  private void storeBatched(
      Connection c,
      long requestId,
      long session,
      long sequence,
      int colorId,
      int shardId,
      ByteBuf frame,
      int at,
      int length,
      long now) {
    appends.increment();
    if (length > limits.maxRecordBytes()) {
      outcomes.refused(sequence, ErrorCode.RECORD_TOO_LARGE.code());
      return;
    }
    long committedSn = committedTokens.get(session, sequence);
    if (committedSn != Sn.NONE) {
      duplicateAppends.increment();
      outcomes.committed(sequence, committedSn);
      return;
    }
    int slot = pending.find(session, sequence);
    if (slot != PendingAppends.NONE) {
      duplicateAppends.increment();
      pending.setWaiter(slot, c, requestId, true);
      pending.setSeenNs(slot, now);
      return;
    }
    long address = storage.appendPending(shardId, colorId, session, sequence, frame, at, length);
    if (address == LogStorage.NO_SPACE) {
      outcomes.refused(sequence, ErrorCode.STORAGE_FULL.code());
      return;
    }
    slot = pending.add(session, sequence, address, shardId, colorId);
    pending.setWaiter(slot, c, requestId, true);
    pending.setSeenNs(slot, now);
    long early = earlyAssignments.remove(session, sequence);
    if (early != Sn.NONE) {
      commit(slot, early);
    } else {
      order(slot, shardId, colorId, session, sequence);
    }
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
      shards.log(shardId, colorId).awaitRecord(sn, runtime.nanoTime());
    }
  }

  // ---------------------------------------------------------------- for AppendSync

  /** The records stored here and not yet published as committed (shared with AppendSync). */
  PendingAppends pending() {
    return pending;
  }

  /** Committed SN per token within the dedup window (shared with AppendSync). */
  TokenWindow committedTokens() {
    return committedTokens;
  }

  /** SNs that arrived before their record (shared with AppendSync). */
  TokenLongMap earlyAssignments() {
    return earlyAssignments;
  }

  /**
   * The turn's order requests that have tokens in them (AppendSync drops some on a lost link or a
   * role move).
   */
  List<OrderRequestBatch> activeBatches() {
    return activeBatches;
  }

  // ---------------------------------------------------------------- the end of a turn

  /** Sends the turn's ORDER_REQUESTs, one per (shard, color); call once the log is flushed. */
  void sendOrderRequests() {
    if (activeBatches.isEmpty()) {
      return;
    }
    for (OrderRequestBatch batch : activeBatches) {
      batch.roleEpoch(shards.roleEpochOf(batch.shardId));
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
    int i = 0;
    while (i < committedCount) {
      int slot = committedSlots[i];
      Connection waiter = pending.waiter(slot);
      int run = 1;
      if (waiter != null && pending.waiterBatch(slot)) {
        run = ackBatchRun(i);
      } else if (waiter != null) {
        publisher.ack(
            waiter,
            pending.waiterRequestId(slot),
            pending.tokenSession(slot),
            pending.tokenSequence(slot),
            pending.sn(slot),
            pending.color(slot));
        long arrival = pending.arrivalNs(slot);
        if (arrival != 0) {
          colorMeters.appendLatency(runtime.nanoTime() - arrival);
        }
      }
      for (int k = i; k < i + run; k++) {
        publishCommit(committedSlots[k]);
      }
      i += run;
    }
    committedCount = 0;
  }

  /**
   * Acknowledges in one APPEND_BATCH_ACK the committed slots from {@code from} on that wait on the
   * same batch request (same connection, request id, session and color).
   *
   * @return how many slots the frame acknowledged
   */
  private int ackBatchRun(int from) {
    int first = committedSlots[from];
    Connection waiter = pending.waiter(first);
    long requestId = pending.waiterRequestId(first);
    long session = pending.tokenSession(first);
    int colorId = pending.color(first);
    outcomes.clear();
    int end = from;
    while (end < committedCount) {
      int slot = committedSlots[end];
      if (pending.waiter(slot) != waiter
          || !pending.waiterBatch(slot)
          || pending.waiterRequestId(slot) != requestId
          || pending.tokenSession(slot) != session
          || pending.color(slot) != colorId) {
        break;
      }
      outcomes.committed(pending.tokenSequence(slot), pending.sn(slot));
      end++;
    }
    publisher.ackBatch(waiter, requestId, session, colorId, outcomes);
    return end - from;
  }

  private void publishCommit(int slot) {
    long sn = pending.sn(slot);
    ColorLog log = shards.log(pending.shard(slot), pending.color(slot));
    log.index.add(sn, pending.address(slot));
    log.recordArrived(sn);
    committedTokens.put(pending.tokenSession(slot), pending.tokenSequence(slot), sn);
    pending.remove(slot);
  }

  /** Commits a pending slot at {@code sn}; published and acknowledged at the end of the turn. */
  void commit(int slot, long sn) {
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

  /** The turn's order request of a (shard, color), activated on first use in the turn. */
  OrderRequestBatch batch(int shardId, int colorId) {
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
