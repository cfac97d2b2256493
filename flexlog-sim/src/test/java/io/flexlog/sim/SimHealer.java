package io.flexlog.sim;

import io.flexlog.core.model.Sn;
import java.util.List;
import java.util.Map;

/**
 * The end of a run: faults stop, every process starts, every connection is made, and the cluster
 * must become live within a bound of virtual time: every client operation completes and every
 * subscriber delivers every record acknowledged in its color. Then the {@link SimAuditor} asks each
 * replica for what it acknowledged.
 */
final class SimHealer {
  /** Virtual time the healed cluster gets to become live: several client and liveness timeouts. */
  static final long LIVE_WITHIN_MS = 120_000;

  private final SimWorld world;
  private final SimOperations operations;

  SimHealer(SimWorld world, SimOperations operations) {
    this.world = world;
    this.operations = operations;
  }

  void healAndCheck() {
    world.trace.note("heal");
    if (world.failover != null) {
      world.failover.healCuts();
    }
    world.startAll();
    long deadline = world.clock.nowMs() + LIVE_WITHIN_MS;
    while (true) {
      boolean moved = world.connectAll();
      moved |= world.network.deliverAll(world::afterEvent);
      moved |= world.runAllTurns();
      world.afterEvent();
      for (List<SimSubscriber> list : world.subscribers.values()) {
        for (SimSubscriber s : list) {
          moved |= s.drain(world) > 0;
        }
      }
      world.afterEvent();
      if (!moved) {
        String missing = notLive();
        if (missing == null) {
          break;
        }
        if (world.clock.nowMs() > deadline) {
          world.fail(
              operations.settled() ? Invariant.SUBSCRIBERS_COMPLETE : Invariant.OPERATIONS_COMPLETE,
              "not live " + LIVE_WITHIN_MS + " ms after healing: " + missing);
          break;
        }
        world.clock.fireNext();
      }
    }
    new SimAuditor(world).auditAll();
    operations.checkGroups();
    world.retention.convergeAndCheck();
  }

  /**
   * What is still missing, or null when every operation completed and every subscriber caught up.
   */
  private String notLive() {
    if (!operations.settled()) {
      return operations.inFlightCount() + " client operations still in flight";
    }
    for (Map.Entry<String, List<SimSubscriber>> e : world.subscribers.entrySet()) {
      for (SimSubscriber s : e.getValue()) {
        for (SimHistory.Acked a : world.history.acked.values()) {
          if (a.colorId() == s.colorId
              && !s.delivered(a.sn())
              && !world.retention.skippable(a.colorId(), a.sn())) {
            return s
                + " never delivered "
                + a.payload()
                + " at "
                + Sn.describe(a.sn())
                + " (last delivered "
                + Sn.describe(s.lastSn())
                + ")";
          }
        }
      }
    }
    return null;
  }
}
