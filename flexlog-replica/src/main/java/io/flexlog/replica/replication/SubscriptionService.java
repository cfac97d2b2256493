package io.flexlog.replica.replication;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Shard;
import io.flexlog.core.protocol.SubscribeDescriptor;
import io.flexlog.replica.index.SnIndex;
import io.flexlog.replica.storage.LogStorage;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * The replica's side of Subscribe (docs/architecture.md#subscribe): streams the committed records
 * of a color on one shard in SN order, from a starting SN, then live as {@code committedThrough}
 * moves, with the progress after each batch.
 *
 * <p>Flow control: a subscription gets records only while it has credit (bytes, granted by the
 * subscriber as it consumes) and its connection is writable, and one pump sends at most {@link
 * #MAX_BATCH_BYTES}. So a slow or stalled subscriber costs the replica at most its credit and one
 * batch of buffered bytes, and a subscriber with a large backlog is served one batch per event-loop
 * turn, interleaved with everything else the loop does.
 *
 * <p>Safety: only records at or below {@code committedThrough} are sent, so no smaller SN of this
 * shard can appear after them, and never into an open blind range of the {@link ColorLog} (after a
 * restart or a lost sequencer link), where the sync phase may still fetch records this replica has
 * not received (docs/architecture.md#sync-phase): the subscription waits there, with heartbeats,
 * until the range is closed. The subscriber's ACCEPT_UNSYNCED flag is accepted and ignored.
 *
 * <p>Trim: records at or below the color's trim point are never sent; a subscription whose position
 * a trim overtakes continues after the trim point (a SUBSCRIBE asking to refuse trimmed SNs that
 * starts at one is refused).
 *
 * <p>Topology changes: when a color's subtree gains shards, the color's role sends a join mark
 * {@code (topology version, mark SN)} on the connections that carry its watermarks, so it reaches
 * this replica before any watermark at or above the mark (docs/architecture.md#subscribe). Each
 * subscription of the color delivers every mark of its log as a TOPOLOGY_MARK frame before whatever
 * else it sends next: so before any record or progress at or above the mark, which is what lets the
 * subscriber open streams on the new shards before it releases an SN that one of them could hold. A
 * subscription also gets the marks kept from before it opened (its client may have an older
 * topology); the client ignores marks its topology already covers.
 *
 * <p>Heartbeats: one timer on the runtime ({@link #startHeartbeats}) calls {@link #heartbeatTick}
 * {@link #TICKS_PER_HEARTBEAT} times per heartbeat interval; a subscription that sent nothing
 * during the last {@link #TICKS_PER_HEARTBEAT} ticks gets a SUBSCRIBE_PROGRESS repeating the
 * progress it last sent. So an idle subscription hears from its replica at least every interval
 * plus one tick, a busy one gets no extra frames, and a subscriber that hears nothing for a few
 * intervals knows the link or the replica is dead (not merely idle). The repeated progress tells
 * the subscriber nothing new, so a heartbeat can never reorder anything.
 *
 * <p>Frames are encoded by the {@link ReplicaPublisher}; connections written to are touched, so the
 * end of the turn flushes them. Threading: every method runs on the replica's event loop.
 */
final class SubscriptionService {
  /** The most payload bytes one pump of one subscription sends (one record may exceed it). */
  static final int MAX_BATCH_BYTES = 256 << 10;

  /** The most records in one SUBSCRIBE_RECORDS frame. */
  static final int MAX_BATCH_RECORDS = 1024;

  /** Subscriptions one connection may hold open. */
  static final int MAX_PER_CONNECTION = 4096;

  /** Heartbeat timer ticks per heartbeat interval (the timer's resolution). */
  static final int TICKS_PER_HEARTBEAT = 4;

  private final ShardLogs shards;
  private final LogStorage storage;
  private final ReplicaLimits limits;
  private final ReplicaRuntime runtime;
  private final ReplicaPublisher publisher;
  private final Runnable requestTurn;
  private final Map<Connection, Long2ObjectHashMap<Subscription>> byConnection = new HashMap<>();
  private final ArrayDeque<Subscription> ready = new ArrayDeque<>();

  /** Every open subscription, for the heartbeat scan (no iterator per tick). */
  private final ArrayList<Subscription> all = new ArrayList<>();

  private final Runnable heartbeatTask = this::heartbeat;
  private ReplicaRuntime.Timer heartbeats;
  private boolean heartbeating;
  private long tick;
  private int open;
  private long recordsSent;
  private long heartbeatsSent;

  SubscriptionService(
      ShardLogs shards,
      LogStorage storage,
      ReplicaLimits limits,
      ReplicaRuntime runtime,
      ReplicaPublisher publisher,
      Runnable requestTurn,
      MeterRegistry registry) {
    this.shards = shards;
    this.storage = storage;
    this.limits = limits;
    this.runtime = runtime;
    this.publisher = publisher;
    this.requestTurn = requestTurn;
    String node = Integer.toString(shards.nodeId());
    Gauge.builder("flexlog.replica.subscriptions", this, SubscriptionService::openCount)
        .tag("node", node)
        .description("open subscription streams")
        .register(registry);
    FunctionCounter.builder(
            "flexlog.replica.subscription.records", this, SubscriptionService::recordsSent)
        .tag("node", node)
        .description("records sent on subscriptions")
        .register(registry);
    FunctionCounter.builder(
            "flexlog.replica.subscription.heartbeats", this, SubscriptionService::heartbeatsSent)
        .tag("node", node)
        .description("SUBSCRIBE_PROGRESS heartbeats sent on idle subscriptions")
        .register(registry);
  }

  int openCount() {
    return open;
  }

  long recordsSent() {
    return recordsSent;
  }

  long heartbeatsSent() {
    return heartbeatsSent;
  }

  /**
   * SUBSCRIBE: opens a stream of the color's records on one hosted shard; its first frame goes out
   * when {@link #pumpReady} runs. Refusals are ERROR frames carrying the subscription id.
   */
  void onSubscribe(
      Connection c, long id, int colorId, int shardId, long fromSn, long credit, byte flags) {
    Shard shard = shards.shard(shardId);
    String refusal = null;
    ErrorCode code = ErrorCode.INVALID_ARGUMENT;
    if (!shards.knowsColor(colorId)) {
      code = ErrorCode.UNKNOWN_COLOR;
      refusal = "unknown color id " + colorId;
    } else if (shard == null) {
      code = ErrorCode.UNKNOWN_SHARD;
      refusal = "replica node " + shards.nodeId() + " does not host shard " + shardId;
    } else if (!shards.topology().isInSubtree(shard.colorId(), colorId)) {
      refusal = "shard " + shardId + " is not in the subtree of color id " + colorId;
    } else if (fromSn < 0) {
      refusal = "subscription start SN must be >= 0, got " + fromSn;
    } else if ((flags & SubscribeDescriptor.REFUSE_TRIMMED) != 0
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
      refusal = open(c, id, shards.log(shardId, colorId), fromSn, credit);
    }
    if (refusal != null) {
      publisher.error(c, id, code, refusal);
      return;
    }
    requestTurn.run();
  }

  /**
   * Opens a subscription.
   *
   * @return null, or why it was refused (nothing is registered then)
   */
  private String open(Connection c, long id, ColorLog log, long fromSn, long credit) {
    Long2ObjectHashMap<Subscription> subscriptions =
        byConnection.computeIfAbsent(c, k -> new Long2ObjectHashMap<>());
    if (subscriptions.containsKey(id)) {
      return "subscription id " + id + " is already open on this connection";
    }
    if (subscriptions.size() >= MAX_PER_CONNECTION) {
      return "a connection may hold at most " + MAX_PER_CONNECTION + " subscriptions";
    }
    Subscription subscription = new Subscription(c, id, log, fromSn, credit);
    subscription.lastSendTick = tick;
    subscriptions.put(id, subscription);
    log.subscribers.add(subscription);
    all.add(subscription);
    open++;
    enqueue(subscription);
    return null;
  }

  /** SUBSCRIBE_CREDIT: adds credit; unknown ids are ignored (the subscription may have ended). */
  void onCredit(Connection c, long id, long bytes) {
    if (bytes < 0) {
      publisher.error(
          c, id, ErrorCode.INVALID_ARGUMENT, "subscription credit must be >= 0, got " + bytes);
      return;
    }
    Subscription subscription = find(c, id);
    if (subscription != null) {
      boolean starved = subscription.credit <= 0;
      subscription.credit = saturatedAdd(subscription.credit, bytes);
      if (starved && subscription.credit > 0) {
        enqueue(subscription);
      }
    }
    requestTurn.run();
  }

  /** UNSUBSCRIBE: ends the subscription; unknown ids are ignored. */
  void close(Connection c, long id) {
    Subscription subscription = find(c, id);
    if (subscription != null) {
      remove(subscription);
    }
  }

  void onConnectionClosed(Connection c) {
    Long2ObjectHashMap<Subscription> subscriptions = byConnection.remove(c);
    if (subscriptions != null) {
      for (Subscription subscription : new ArrayList<>(subscriptions.values())) {
        detach(subscription);
      }
    }
  }

  void onConnectionWritable(Connection c) {
    Long2ObjectHashMap<Subscription> subscriptions = byConnection.get(c);
    if (subscriptions != null) {
      for (Subscription subscription : subscriptions.values()) {
        if (subscription.blocked) {
          subscription.blocked = false;
          enqueue(subscription);
        }
      }
    }
    requestTurn.run();
  }

  /** A join mark was added to the log: its subscribers have it to deliver. */
  void onMark(ColorLog log) {
    onAdvanced(log);
  }

  /** The log's {@code committedThrough} moved: its subscribers may have records to send. */
  void onAdvanced(ColorLog log) {
    for (int i = 0; i < log.subscribers.size(); i++) {
      enqueue(log.subscribers.get(i));
    }
  }

  boolean hasReady() {
    return !ready.isEmpty();
  }

  /**
   * Pumps every subscription that was ready when called, once. Those that still have records and
   * credit afterwards are queued again for the next turn (see {@link #hasReady}).
   */
  void pumpReady() {
    for (int n = ready.size(); n > 0; n--) {
      Subscription subscription = ready.poll();
      subscription.queued = false;
      if (!subscription.closed) {
        pump(subscription);
      }
    }
  }

  private void pump(Subscription s) {
    ColorLog log = s.log;
    if (!s.connection.isActive()) {
      return;
    }
    if (!s.connection.isWritable()) {
      s.blocked = true;
      return;
    }
    boolean marked = deliverMarks(s);
    long trimPoint = storage.trimPoint(log.colorId);
    if (s.nextSn <= trimPoint) {
      s.nextSn = trimPoint + 1; // trimmed records are never served (docs/architecture.md#trim)
    }
    long limit = log.sendLimit(s.nextSn);
    SnIndex index = log.index;
    int from = index.ceilingPosition(s.nextSn);
    RecordBatchWriter batch = publisher.records();
    int to =
        batch.take(
            log, from, limit, s.credit, MAX_BATCH_BYTES, MAX_BATCH_RECORDS, s.connection.alloc());
    boolean drained = to == index.size() || index.snAt(to) > limit;
    long progress;
    if (drained) {
      // Everything up to the limit is sent; SNs below the starting SN are not part of the stream.
      progress = Math.max(limit, s.nextSn - 1);
    } else if (to > from) {
      progress = index.snAt(to - 1);
    } else {
      progress = s.nextSn - 1; // out of credit: nothing new
    }
    progress = Math.max(progress, 0);
    if (to > from) {
      batch.write(s.connection, s.id, log, progress);
      recordsSent += to - from;
      s.nextSn = index.snAt(to - 1) + 1;
      s.credit = batch.creditLeft();
    } else if (progress > s.progressSent) {
      publisher.progress(s.connection, s.id, log.colorId, log.shardId, progress);
    } else {
      if (marked) {
        s.lastSendTick = tick;
        publisher.touch(s.connection);
      }
      return;
    }
    s.progressSent = Math.max(s.progressSent, progress);
    s.lastSendTick = tick;
    publisher.touch(s.connection);
    if (!drained && s.credit > 0) {
      enqueue(s);
    }
  }

  /** Writes the log's marks the subscription has not delivered yet; true if there were any. */
  private boolean deliverMarks(Subscription s) {
    ColorLog log = s.log;
    long end = log.endMark();
    if (s.nextMark >= end) {
      return false;
    }
    for (long mark = Math.max(s.nextMark, log.firstMark()); mark < end; mark++) {
      publisher.mark(
          s.connection, s.id, log.colorId, log.shardId, log.markVersion(mark), log.markSn(mark));
    }
    s.nextMark = end;
    return true;
  }

  /**
   * Starts the heartbeat timer: one timer for the service, ticking {@link #TICKS_PER_HEARTBEAT}
   * times per {@link ReplicaLimits#heartbeatInterval()}. Call once, on the replica's loop, before
   * serving; {@link #stopHeartbeats} ends it.
   */
  void startHeartbeats() {
    if (heartbeats != null) {
      throw new IllegalStateException("heartbeats already started");
    }
    heartbeating = true;
    scheduleHeartbeat();
  }

  void stopHeartbeats() {
    heartbeating = false;
    if (heartbeats != null) {
      heartbeats.cancel();
    }
  }

  private void scheduleHeartbeat() {
    long periodNs = limits.heartbeatInterval().toNanos() / TICKS_PER_HEARTBEAT;
    heartbeats = runtime.schedule(heartbeatTask, periodNs);
  }

  private void heartbeat() {
    if (!heartbeating) {
      return;
    }
    scheduleHeartbeat();
    if (heartbeatTick() > 0) {
      requestTurn.run(); // flushes the touched connections
    }
  }

  /**
   * One tick of the heartbeat timer: sends a heartbeat on every subscription that sent nothing
   * during the last {@link #TICKS_PER_HEARTBEAT} ticks. Connections written to are touched, so the
   * caller's end of turn flushes them.
   *
   * @return how many heartbeats were sent
   */
  int heartbeatTick() {
    tick++;
    int sent = 0;
    for (int i = 0; i < all.size(); i++) {
      Subscription s = all.get(i);
      if (tick - s.lastSendTick < TICKS_PER_HEARTBEAT
          || s.progressSent < 0
          || !s.connection.isActive()
          || !s.connection.isWritable()) {
        // Busy, not answered yet (its first pump does), or a connection that takes nothing now:
        // an unwritable one has frames in flight already, which is what the subscriber waits for.
        continue;
      }
      publisher.progress(s.connection, s.id, s.log.colorId, s.log.shardId, s.progressSent);
      s.lastSendTick = tick;
      publisher.touch(s.connection);
      sent++;
    }
    heartbeatsSent += sent;
    return sent;
  }

  private void enqueue(Subscription subscription) {
    if (!subscription.queued && !subscription.closed) {
      subscription.queued = true;
      ready.add(subscription);
    }
  }

  private Subscription find(Connection c, long id) {
    Long2ObjectHashMap<Subscription> subscriptions = byConnection.get(c);
    return subscriptions == null ? null : subscriptions.get(id);
  }

  private void remove(Subscription subscription) {
    Long2ObjectHashMap<Subscription> subscriptions = byConnection.get(subscription.connection);
    if (subscriptions != null) {
      subscriptions.remove(subscription.id);
      if (subscriptions.isEmpty()) {
        byConnection.remove(subscription.connection);
      }
    }
    detach(subscription);
  }

  private void detach(Subscription subscription) {
    if (!subscription.closed) {
      subscription.closed = true;
      subscription.log.subscribers.remove(subscription);
      all.remove(subscription);
      open--;
    }
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }
}
