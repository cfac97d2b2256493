package io.flexlog.sim;

import io.flexlog.core.model.Color;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * The faults of the failover modes of the {@link SimWorld} (docs/testing.md, "Sequencer failover"):
 * besides lost connections, the leader of {@code global} crashes, or is cut from the quorum while
 * it lives, or is cut from the quorum and from some replica nodes while it still reaches the
 * others, or a replica restarts or loses its sequencer link in the same step as the leader fails,
 * followed by a second leader change while that replica syncs; in the tree modes, the leader of
 * {@code global} or (deep tree) of another color fails. A node comes back, and a cut heals, only
 * after a while, so that a backup's lease runs out first.
 */
final class SimFailoverFaults {
  /** A crashed sequencer node stays down this long: longer than a lease, so a backup takes over. */
  static final long SEQUENCER_DOWN_MS = 1_000;

  /** A cut lasts this long before it may heal. */
  static final long CUT_MS = 900;

  /** A crashed replica node stays down this long. */
  static final long REPLICA_DOWN_MS = 150;

  private final SimWorld world;
  private final SimFailover failover;
  private final Random random;
  private final Map<Object, Long> since = new HashMap<>();
  private long cutAtMs = -1;
  long leaderFaults;
  long syncOverlaps;

  SimFailoverFaults(SimWorld world, SimFailover failover) {
    this.world = world;
    this.failover = failover;
    this.random = world.random;
  }

  void fault() {
    int roll = random.nextInt(10);
    List<SimLink> links = world.network.links();
    if (roll < 3 && !links.isEmpty()) {
      SimLink link = links.get(random.nextInt(links.size()));
      world.network.drop(link, "drop " + link.describe());
    } else if (roll < 6) {
      switch (world.faults) {
        case LEADER_CRASH -> crashLeader(Color.GLOBAL_ID);
        case LEASE_EXPIRY -> cutLeader(Color.GLOBAL_ID, false);
        case PARTITION -> cutLeader(Color.GLOBAL_ID, true);
        case SYNC_TAKEOVER -> overlapSync();
        case TREE_LEADER_FAIL -> crashOrCut(Color.GLOBAL_ID);
        case DEEP_TREE_FAIL -> {
          int pick = random.nextInt(4);
          crashOrCut(pick < 2 ? SimScenarios.MID : pick == 2 ? Color.GLOBAL_ID : SimScenarios.LEAF);
        }
        default -> throw new IllegalStateException("not a failover mode: " + world.faults);
      }
    } else {
      recover();
    }
  }

  private void crashOrCut(int colorId) {
    if (random.nextBoolean()) {
      crashLeader(colorId);
    } else {
      cutLeader(colorId, false);
    }
  }

  /** The up node holding the lease of {@code global}, or null. */
  private SimSequencer leader() {
    return leader(Color.GLOBAL_ID);
  }

  /** The up node holding the lease of {@code colorId}, or null. */
  private SimSequencer leader(int colorId) {
    int id = failover.leaderOf(colorId);
    SimSequencer s = id < 0 ? null : world.sequencers.get(id);
    return s != null && s.up() ? s : null;
  }

  private void crashLeader(int colorId) {
    SimSequencer leader = leader(colorId);
    if (leader != null && upSequencers() > 1) {
      world.trace.note("fault: the leader of color " + colorId + " crashes");
      crash(leader);
    }
  }

  private void cutLeader(int colorId, boolean fromSomeReplicas) {
    SimSequencer leader = leader(colorId);
    if (leader == null || !failover.cutFromQuorum.isEmpty()) {
      return;
    }
    Set<Integer> replicas = new HashSet<>();
    if (fromSomeReplicas) {
      List<Integer> ids = new ArrayList<>(world.replicas.keySet());
      int count = 1 + random.nextInt(ids.size() - 1);
      while (replicas.size() < count) {
        replicas.add(ids.get(random.nextInt(ids.size())));
      }
    }
    leaderFaults++;
    failover.cut(leader.id, replicas);
    cutAtMs = world.clock.nowMs();
  }

  /**
   * A replica restarts or loses its link to the leader in the same step as the leader crashes or is
   * cut from the quorum; while a replica is down or syncing, the next leader fails too.
   */
  private void overlapSync() {
    SimSequencer leader = leader();
    if (leader == null || !failover.cutFromQuorum.isEmpty()) {
      return;
    }
    boolean replicaDown = world.replicas.values().stream().anyMatch(r -> !r.up());
    if (!replicaDown) {
      List<SimReplica> up = new ArrayList<>(world.replicas.values());
      SimReplica r = up.get(random.nextInt(up.size()));
      syncOverlaps++;
      if (random.nextBoolean()) {
        world.trace.note("fault: " + r + " crashes as the leader fails");
        since.put(r, world.clock.nowMs());
        r.crash();
      } else {
        world.trace.note("fault: " + r + " loses its link to the leader as the leader fails");
        for (SimLink link : new ArrayList<>(world.network.links())) {
          if (link.initiator.owner == r.life && link.acceptor.owner == leader.life) {
            world.network.drop(link, "drop " + link.describe());
          }
        }
      }
    } else {
      world.trace.note("fault: a second leader change while a replica syncs");
    }
    if (random.nextBoolean() && upSequencers() > 1) {
      crash(leader);
    } else {
      leaderFaults++;
      failover.cut(leader.id, Set.of());
      cutAtMs = world.clock.nowMs();
    }
  }

  private void crash(SimSequencer s) {
    leaderFaults++;
    world.crashes++;
    since.put(s, world.clock.nowMs());
    s.crash();
  }

  private int upSequencers() {
    return (int) world.sequencers.values().stream().filter(SimSequencer::up).count();
  }

  /** Restarts a node that was down long enough, or heals a cut that lasted long enough. */
  private void recover() {
    long now = world.clock.nowMs();
    List<Runnable> options = new ArrayList<>();
    for (SimSequencer s : world.sequencers.values()) {
      if (!s.up() && now - since.getOrDefault(s, 0L) >= SEQUENCER_DOWN_MS) {
        options.add(s::start);
      }
    }
    for (SimReplica r : world.replicas.values()) {
      if (!r.up() && now - since.getOrDefault(r, 0L) >= REPLICA_DOWN_MS) {
        options.add(r::start);
      }
    }
    if (cutAtMs >= 0 && now - cutAtMs >= CUT_MS) {
      options.add(
          () -> {
            cutAtMs = -1;
            failover.healCuts();
          });
    }
    if (!options.isEmpty()) {
      options.get(random.nextInt(options.size())).run();
    }
  }
}
