package io.flexlog.sim;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.Retention;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Retention in the simulation (docs/testing.md, "Retention"): a third of the seeds give one color a
 * {@code retention.ms}, and the replicas' own {@code RetentionPolicy} trims it on virtual time
 * ({@code -Dflexlog.sim.noRetention=true} replays a seed without it). The checks:
 *
 * <ul>
 *   <li>after every step, no replica's trim point of the color covers an acknowledged record whose
 *       append began less than {@code retention.ms} ago ({@link
 *       Invariant#RETENTION_SPARES_RECENT}); reads that fail with TRIMMED, the auditor's TRIMMED
 *       answers and subscribers that skip an SN are accepted only where that holds;
 *   <li>once healed and audited, time runs on past {@code retention.ms} and every replica of the
 *       color's subtree must trim through every acknowledged record ({@link
 *       Invariant#RETENTION_CONVERGES}): a replica that cannot take the decider's trim point, such
 *       as one awaiting a record its client never delivered, fails it.
 * </ul>
 */
final class SimRetention {
  /**
   * The {@code retention.ms} values drawn: trims early in a run, late in it, or only when healed.
   */
  private static final long[] MS = {400, 1_500, 6_000};

  /**
   * Virtual time given after {@code retention.ms}, as to a healed cluster to become live: sampling,
   * the TRIMs re-sent every 2 s, and a replica that missed records its clients gave up on filling
   * them one SN at a time (docs/architecture.md#sync-phase, "Fill").
   */
  static final long CONVERGE_SLACK_MS = SimHealer.LIVE_WITHIN_MS;

  private final SimWorld world;

  /** The color with a retention, or -1 when the run has none. */
  final int colorId;

  /** Its {@code retention.ms}. */
  final long ms;

  /** The largest trim point of the color seen on any replica so far. */
  private long trimSeen;

  /** The trim point of the color last seen on each replica, for the trace. */
  private final java.util.Map<Integer, Long> lastTrimPoints = new java.util.HashMap<>();

  /**
   * Draws the run's retention from a random of its own, so that a seed without retention runs as it
   * did before retention was simulated.
   */
  SimRetention(SimWorld world, long seed, Topology topology, boolean allowed) {
    this.world = world;
    SplittableRandom draw = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 17);
    if (allowed && draw.nextInt(3) == 0 && !Boolean.getBoolean("flexlog.sim.noRetention")) {
      List<Color> colors = topology.colors();
      this.colorId = colors.get(draw.nextInt(colors.size())).id();
      this.ms = MS[draw.nextInt(MS.length)];
    } else {
      this.colorId = -1;
      this.ms = Retention.KEEP;
    }
  }

  boolean enabled() {
    return colorId >= 0;
  }

  /** {@code topology} with this run's retention on its color. */
  Topology apply(Topology topology) {
    if (!enabled()) {
      return topology;
    }
    List<Color> colors = new ArrayList<>();
    for (Color c : topology.colors()) {
      colors.add(c.id() == colorId ? c.withRetention(new Retention(ms, Retention.KEEP)) : c);
    }
    return new Topology(
        topology.version(), new ArrayList<>(topology.nodes().values()), colors, topology.shards());
  }

  String describe() {
    return enabled() ? "color " + colorId + " retention.ms=" + ms : "no retention";
  }

  /**
   * After every step: the trim point of the color on every live replica spares every acknowledged
   * record younger than {@code retention.ms}.
   */
  void check() {
    if (!enabled()) {
      return;
    }
    long trimAsked = world.history.trimAsked.getOrDefault(colorId, 0L);
    for (int replicaId : replicaIds()) {
      SimReplica replica = world.replicas.get(replicaId);
      if (replica.life == null) {
        continue;
      }
      long trimPoint = replica.life.storage.trimPoint(colorId);
      trimSeen = Math.max(trimSeen, trimPoint);
      Long before = lastTrimPoints.put(replicaId, trimPoint);
      if (before == null || before != trimPoint) {
        world.trace.note(
            "replica "
                + replicaId
                + " trim point of color "
                + colorId
                + ": "
                + Sn.describe(trimPoint));
      }
      if (trimPoint <= trimAsked) {
        continue;
      }
      for (SimHistory.Acked a : world.history.acked.values()) {
        if (a.colorId() == colorId
            && a.sn() > trimAsked
            && a.sn() <= trimPoint
            && !oldEnough(a.sn())) {
          world.fail(
              Invariant.RETENTION_SPARES_RECENT,
              "replica "
                  + replicaId
                  + " trimmed color "
                  + colorId
                  + " through "
                  + Sn.describe(trimPoint)
                  + ", over "
                  + a.payload()
                  + " at "
                  + Sn.describe(a.sn())
                  + ", appended "
                  + (world.clock.nowMs() - world.history.appendStartMs(colorId, a.sn()))
                  + " ms ago with retention.ms="
                  + ms);
        }
      }
    }
  }

  /**
   * Whether retention may have removed the record at {@code sn} of {@code color}: the color has a
   * retention, some replica trimmed through {@code sn}, and the record (if one was acknowledged
   * there) was appended at least {@code retention.ms} ago.
   */
  boolean mayHaveTrimmed(int color, long sn) {
    return skippable(color, sn) && oldEnough(sn);
  }

  /** Whether a subscriber may skip {@code sn} of {@code color}: some replica trimmed through it. */
  boolean skippable(int color, long sn) {
    if (color != colorId) {
      return false;
    }
    if (sn > trimSeen) {
      // a trim in this very step (a timer fired, a TRIM arrived) is not in trimSeen yet
      for (int replicaId : replicaIds()) {
        SimReplica replica = world.replicas.get(replicaId);
        if (replica.life != null) {
          trimSeen = Math.max(trimSeen, replica.life.storage.trimPoint(colorId));
        }
      }
    }
    return sn <= trimSeen;
  }

  private boolean oldEnough(long sn) {
    long start = world.history.appendStartMs(colorId, sn);
    return start < 0 || world.clock.nowMs() - start >= ms;
  }

  /**
   * Once healed and audited: time runs on past {@code retention.ms}, and every replica of the
   * color's subtree must then trim through every acknowledged record of the color.
   */
  void convergeAndCheck() {
    if (!enabled()) {
      return;
    }
    long lastAcked = 0;
    for (SimHistory.Acked a : world.history.acked.values()) {
      if (a.colorId() == colorId) {
        lastAcked = Math.max(lastAcked, a.sn());
      }
    }
    long until = world.clock.nowMs() + ms + CONVERGE_SLACK_MS;
    world.trace.note("retention: run until " + until + " ms, expect trims through " + lastAcked);
    while (world.clock.nowMs() < until && !trimmedThrough(lastAcked)) {
      boolean moved = world.connectAll();
      moved |= world.network.deliverAll(world::afterEvent);
      moved |= world.runAllTurns();
      for (List<SimSubscriber> list : world.subscribers.values()) {
        for (SimSubscriber s : list) {
          moved |= s.drain(world) > 0;
        }
      }
      world.afterEvent();
      if (!moved && world.clock.fireNext() < 0) {
        break;
      }
    }
    for (int replicaId : replicaIds()) {
      long trimPoint = world.replicas.get(replicaId).life.storage.trimPoint(colorId);
      if (trimPoint < lastAcked) {
        world.fail(
            Invariant.RETENTION_CONVERGES,
            "replica "
                + replicaId
                + " trimmed color "
                + colorId
                + " only through "
                + Sn.describe(trimPoint)
                + ", "
                + (ms + CONVERGE_SLACK_MS)
                + " ms after healing with retention.ms="
                + ms
                + "; every acknowledged record up to "
                + Sn.describe(lastAcked)
                + " is older than that");
      }
    }
  }

  /** Trim points the deciding replicas moved for retention in this run (their meter). */
  long decided() {
    return (long) sum("flexlog.replica.retention.trims");
  }

  /** Trim points replicas took from a peer's answer to their fill (their meter). */
  long adopted() {
    return (long) sum("flexlog.replica.trims.adopted");
  }

  /**
   * Pending records the replicas gave up after a token sync because no client sent them for half
   * the retention (their meter; docs/architecture.md#retention).
   */
  long abandoned() {
    return (long) sum("flexlog.replica.sync.abandoned");
  }

  private double sum(String meter) {
    return world.meters.find(meter).counters().stream().mapToDouble(c -> c.count()).sum();
  }

  private boolean trimmedThrough(long sn) {
    for (int replicaId : replicaIds()) {
      SimReplica replica = world.replicas.get(replicaId);
      if (replica.life == null || replica.life.storage.trimPoint(colorId) < sn) {
        return false;
      }
    }
    return true;
  }

  /** The replicas of the shards that hold the color's records. */
  private Set<Integer> replicaIds() {
    Set<Integer> ids = new HashSet<>();
    for (Shard shard : world.topology.shardsInSubtree(colorId)) {
      ids.addAll(shard.replicaNodeIds());
    }
    return ids;
  }
}
