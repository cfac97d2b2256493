package io.flexlog.replica.replication;

import io.flexlog.replica.storage.LogStorage;

/**
 * Ends the replica's event-loop turns. Everything that arrives in one turn is written to the log;
 * the end of the turn then flushes the log once, lets the atomic component act on what became
 * durable, sends one ORDER_REQUEST per (shard, color), publishes the commits, moves each log's
 * {@code committedThrough}, answers the reads that became decidable, pumps the subscriptions and
 * flushes each connection written to once. So order requests go out only for durable entries, and
 * acks only for durable commits.
 *
 * <p>A state machine that changed something asks for the end of turn with {@link #request()}; it
 * runs once, as a task on the {@link ReplicaRuntime} after the work already queued.
 *
 * <p>Threading: the replica's event loop.
 */
final class TurnConductor {
  private final ReplicaRuntime runtime;
  private final LogStorage storage;
  private final ShardLogs shards;
  private final AppendPath appends;
  private final ReadPath reads;
  private final SubscriptionService subscriptions;
  private final ReplicaPublisher publisher;
  private final SyncPhase sync;
  private final Runnable endOfTurnTask = this::endOfTurn;
  private StagingHook staging = StagingHook.NONE;
  private boolean scheduled;
  private boolean inEndOfTurn;

  TurnConductor(
      ReplicaRuntime runtime,
      LogStorage storage,
      ShardLogs shards,
      AppendPath appends,
      ReadPath reads,
      SubscriptionService subscriptions,
      SyncPhase sync,
      ReplicaPublisher publisher) {
    this.sync = sync;
    this.runtime = runtime;
    this.storage = storage;
    this.shards = shards;
    this.appends = appends;
    this.reads = reads;
    this.subscriptions = subscriptions;
    this.publisher = publisher;
  }

  /** The atomic-append component, told after each log flush. */
  void staging(StagingHook hook) {
    this.staging = hook;
  }

  /** Asks for an end of turn; several requests in one turn end it once. */
  void request() {
    if (!scheduled) {
      scheduled = true;
      runtime.execute(endOfTurnTask);
    }
  }

  /**
   * Makes the turn's writes durable, then lets them take effect: order requests go out only for
   * entries that are durable, acks only for commits that are durable.
   */
  void endOfTurn() {
    scheduled = false;
    if (inEndOfTurn) {
      // Re-entered from a flush that ran pending tasks: finish the outer turn, then run again.
      request();
      return;
    }
    inEndOfTurn = true;
    try {
      storage.flush();
      staging.onFlushed();
      appends.sendOrderRequests();
      appends.publishCommits();
      sync.afterCommits();
      for (int i = 0; i < shards.logCount(); i++) {
        ColorLog log = shards.logAt(i);
        if (log.advance() && !log.subscribers.isEmpty()) {
          subscriptions.onAdvanced(log);
        }
      }
      reads.answerHeld();
      subscriptions.pumpReady();
      if (subscriptions.hasReady()) {
        request(); // more to send: next turn, after the loop has served other connections
      }
      publisher.flushTouched();
    } finally {
      inEndOfTurn = false;
    }
  }
}
