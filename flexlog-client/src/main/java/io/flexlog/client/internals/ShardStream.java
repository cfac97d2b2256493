package io.flexlog.client.internals;

import io.flexlog.core.model.Shard;
import io.flexlog.core.protocol.SubscribeCreditDescriptor;
import io.flexlog.core.protocol.SubscribeDescriptor;
import io.flexlog.core.protocol.UnsubscribeDescriptor;
import io.flexlog.core.util.Backoff;
import java.time.Duration;
import java.util.List;

/**
 * One shard's part of a client subscription: which replica it streams from, under which
 * subscription id, how much credit that replica has, and when to try again after a failure.
 *
 * <p>Failover: after a failure the stream moves to the next replica of the shard at once; once
 * every replica failed in a row it backs off, 50 ms doubling to {@link #MAX_BACKOFF_NS}.
 *
 * <p>Threading: owned by the client's event loop.
 */
final class ShardStream {
  static final long MIN_BACKOFF_NS = 50_000_000L;
  static final long MAX_BACKOFF_NS = 2_000_000_000L;
  // Only its stateless delayNs(attempt) is used, so one instance serves every stream.
  private static final Backoff BACKOFF =
      new Backoff(Duration.ofNanos(MIN_BACKOFF_NS), Duration.ofNanos(MAX_BACKOFF_NS), 2.0);

  enum State {
    /** Not subscribed; opens at {@link #retryAtNs}. */
    IDLE,
    /** SUBSCRIBE sent, no answer yet; fails at {@link #deadlineNs}. */
    OPENING,
    OPEN,
    /** Not subscribed, waiting for a metadata refresh to decide what next. */
    PARKED,
    CLOSED
  }

  final ClientSubscription owner;
  final int index;
  final Shard shard;
  private final List<Integer> replicas;
  State state = State.IDLE;
  long id;
  int nodeId = -1;
  private int cursor;
  long granted;
  long received;
  int failures;
  long deadlineNs;
  long retryAtNs;

  /** When the current replica last sent a frame of this stream (or when it was asked to open). */
  long lastHeardNs;

  /**
   * SUBSCRIBE_PROGRESS frames (heartbeats included) heard on this shard's streams, over every
   * replica it streamed from.
   */
  long progressFrames;

  ShardStream(ClientSubscription owner, int index, Shard shard, int firstReplica) {
    this.owner = owner;
    this.index = index;
    this.shard = shard;
    this.replicas = shard.replicaNodeIds();
    this.cursor = Math.floorMod(firstReplica, replicas.size());
  }

  /**
   * Subscribes at the current replica from {@code fromSn} with {@code credit} bytes.
   *
   * @param refuseTrimmed the replica must refuse if {@code fromSn} is trimmed (the subscriber's own
   *     start); otherwise it starts after the trim point
   */
  void open(
      SubscriptionContext ctx,
      int colorId,
      long fromSn,
      boolean refuseTrimmed,
      long credit,
      long openTimeoutNs) {
    id = ctx.newSubscriptionId();
    nodeId = replicas.get(cursor);
    granted = credit;
    received = 0;
    ctx.register(id, this);
    ctx.send(
        nodeId,
        SubscribeDescriptor.encode(
            ctx.alloc(),
            id,
            colorId,
            shard.id(),
            fromSn,
            credit,
            (byte) (refuseTrimmed ? SubscribeDescriptor.REFUSE_TRIMMED : 0)));
    state = State.OPENING;
    lastHeardNs = ctx.nanoTime();
    deadlineNs = lastHeardNs + openTimeoutNs;
  }

  /**
   * True when the stream is open but its replica sent nothing, not even a heartbeat, for longer
   * than {@code livenessTimeoutNs}: the replica or the link is dead (a half-open connection sends
   * nothing and reports no error).
   */
  boolean isSilent(long nowNs, long livenessTimeoutNs) {
    return state == State.OPEN && nowNs - lastHeardNs > livenessTimeoutNs;
  }

  /** The replica answered: the stream works. */
  void onAnswer() {
    if (state == State.OPENING) {
      state = State.OPEN;
      failures = 0;
    }
  }

  void grant(SubscriptionContext ctx, long bytes) {
    granted += bytes;
    ctx.send(nodeId, SubscribeCreditDescriptor.encode(ctx.alloc(), id, bytes));
  }

  /** Credit the replica still has, as far as the client knows. */
  long replicaCredit() {
    return granted - received;
  }

  boolean isStreaming() {
    return state == State.OPENING || state == State.OPEN;
  }

  /**
   * Gives up on the current replica and schedules the next attempt, on the next replica.
   *
   * @param unsubscribe tell the replica to stop (the connection is still up)
   */
  void fail(SubscriptionContext ctx, boolean unsubscribe) {
    stop(ctx, unsubscribe);
    state = State.IDLE;
    failures++;
    cursor = (cursor + 1) % replicas.size();
    long now = ctx.nanoTime();
    if (failures <= replicas.size()) {
      retryAtNs = now;
    } else {
      retryAtNs = now + backoffNs(failures - replicas.size() - 1);
    }
  }

  /** The delay before retry {@code attempt} (0 for the first) once every replica failed. */
  static long backoffNs(int attempt) {
    return BACKOFF.delayNs(attempt);
  }

  /** Stops streaming until {@link #fail} or {@link #close} decides what next. */
  void park(SubscriptionContext ctx) {
    stop(ctx, false);
    state = State.PARKED;
  }

  void close(SubscriptionContext ctx) {
    stop(ctx, true);
    state = State.CLOSED;
  }

  private void stop(SubscriptionContext ctx, boolean unsubscribe) {
    if (isStreaming()) {
      ctx.unregister(id);
      if (unsubscribe) {
        ctx.send(nodeId, UnsubscribeDescriptor.encode(ctx.alloc(), id));
      }
    }
    id = 0;
  }

  @Override
  public String toString() {
    return "shard " + shard.id() + " at replica node " + nodeId + " (" + state + ")";
  }
}
