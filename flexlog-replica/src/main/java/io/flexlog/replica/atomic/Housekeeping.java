package io.flexlog.replica.atomic;

import io.flexlog.replica.replication.ReplicaRuntime;

/**
 * The one periodic timer of the atomic component, every {@link AtomicConfig#forwardRetry()} while
 * any group is known. Each tick re-sends members whose backoff elapsed, aborts groups without END
 * whose last STAGE is {@link AtomicConfig#abandonAfter()} old, forgets settled groups past their
 * retention and raises the staging color's trim point to just below the oldest entry still needed.
 * All deadlines are measured on the injected {@link ReplicaRuntime}.
 *
 * <p>Threading: confined to the replica's event loop; ticks run on it.
 */
final class Housekeeping {
  private final ReplicaRuntime scheduler;
  private final GroupTable table;
  private final StagingLog log;
  private final Forwarder forwarder;
  private final GroupDecisions decisions;
  private final ForwardTransport transport;
  private final long periodNs;
  private final long abandonNs;
  private final Runnable tick = this::tick;
  private ReplicaRuntime.Timer timer;
  private boolean closed;

  Housekeeping(
      ReplicaRuntime scheduler,
      AtomicConfig config,
      GroupTable table,
      StagingLog log,
      Forwarder forwarder,
      GroupDecisions decisions,
      ForwardTransport transport) {
    this.scheduler = scheduler;
    this.table = table;
    this.log = log;
    this.forwarder = forwarder;
    this.decisions = decisions;
    this.transport = transport;
    this.periodNs = config.forwardRetry().toNanos();
    this.abandonNs = config.abandonAfter().toNanos();
  }

  /** Schedules the next tick if none is scheduled and any group is known. */
  void arm() {
    if (timer == null && !closed && !table.isEmpty()) {
      timer = scheduler.schedule(tick, periodNs);
    }
  }

  void tick() {
    timer = null;
    long now = scheduler.nanoTime();
    forwarder.resendDue(now);
    for (StagedGroup group : table.unsettled()) {
      if (!group.endWritten && !group.abortWritten && now - group.lastStageNs >= abandonNs) {
        decisions.abort(group);
      }
    }
    table.forgetExpired(now);
    log.trimTo(table.reclaimableUpTo(log.lastSn()));
    transport.flush();
    arm();
  }

  /** Cancels the next tick for good. */
  void close() {
    closed = true;
    if (timer != null) {
      timer.cancel();
      timer = null;
    }
  }
}
