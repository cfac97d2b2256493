package io.flexlog.sim;

import io.flexlog.client.consumer.ColorShard;
import io.flexlog.client.consumer.internals.GroupState;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.NodeAddress.Kind;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * A consumer group in the {@link SimWorld} (docs/testing.md, "Consumer groups in the simulation"):
 * {@link SimGroupMember}s, each on a client of its own, coordinate through the group color and read
 * the shards of the color {@link #READ_COLOR} that the world's clients append to, while members
 * join, leave, close, crash without a word and stall their polls, and the world drops connections
 * and crashes replicas and sequencers. The {@link SimGroupReferee} checks the group's invariants as
 * records are applied and processed; once everything is healed the group must converge ({@link
 * #healAndCheck}).
 */
final class SimGroup implements SimGuest {
  static final String READ_COLOR = "events";
  static final String GROUP_COLOR = "flexlog.group.sim";
  static final long SESSION_TIMEOUT_MS = 1500;
  static final long HEARTBEAT_MS = 300;
  static final long MAX_POLL_INTERVAL_MS = 2000;

  /**
   * Group records between two checkpoints: few, so that a run of a few dozen group records
   * checkpoints and trims the group log several times and members resume from checkpoints.
   */
  static final int CHECKPOINT_EVERY = 2;

  private static final int MAX_LIVE = 5;
  private static final long CONVERGE_WITHIN_MS = 120_000;

  final SimWorld world;
  final SimGroupReferee referee;
  private final Random random;
  private final List<SimGroupMember> members = new ArrayList<>();
  private final Color readColor;
  private int nextId;
  long crashes;
  long leaves;
  long closes;
  long stalls;

  SimGroup(SimWorld world) {
    this.world = world;
    this.random = world.random;
    this.referee = new SimGroupReferee(world);
    this.readColor = world.topology.color(READ_COLOR).orElseThrow();
    int initial = 2 + random.nextInt(3);
    for (int i = 0; i < initial; i++) {
      start();
    }
    world.guest(this);
  }

  /**
   * The cluster: one sequencer node; {@code events} with three to six shards and the group color
   * with one, both under {@code global}, each shard on two or three of three or four replica nodes.
   */
  static SimScenarios.Scenario scenario(Random random) {
    // The first numbers of seeds in a row are alike: mix before choosing the shape.
    SplittableRandom shape = new SplittableRandom(random.nextLong());
    int shards = 3 + shape.nextInt(4);
    int replicaNodes = 3 + shape.nextInt(2);
    int perShard = 2 + shape.nextInt(2);
    List<Color> colors =
        List.of(
            new Color(0, Color.GLOBAL, Color.NO_PARENT, 0),
            new Color(1, READ_COLOR, 0, 0),
            new Color(2, GROUP_COLOR, 0, 0));
    List<Shard> shardList = new ArrayList<>();
    for (int s = 0; s <= shards; s++) {
      List<Integer> placement = new ArrayList<>();
      for (int k = 0; k < perShard; k++) {
        placement.add(100 + (s + k) % replicaNodes);
      }
      shardList.add(new Shard(s, s < shards ? 1 : 2, placement));
    }
    List<NodeAddress> nodes = new ArrayList<>();
    nodes.add(new NodeAddress(0, Kind.SEQUENCER, "127.0.0.1", 0));
    for (int r = 0; r < replicaNodes; r++) {
      nodes.add(new NodeAddress(100 + r, Kind.REPLICA, "127.0.0.1", 0));
    }
    return new SimScenarios.Scenario(
        "group, " + shards + " shards of " + perShard + " on " + replicaNodes + " replica nodes",
        new Topology(1, nodes, colors, shardList));
  }

  private SimGroupMember start() {
    int n = nextId++;
    SimGroupMember m = new SimGroupMember("m" + n, 1000 + n, this);
    members.add(m);
    world.trace.note("start group member " + m.id);
    m.subscribe();
    return m;
  }

  private List<SimGroupMember> live() {
    return members.stream().filter(SimGroupMember::live).toList();
  }

  // ---------------------------------------------------------------- SimGuest

  @Override
  public int sharePercent() {
    return 70;
  }

  @Override
  public String testName() {
    return "GroupSimulationTest";
  }

  @Override
  public void event() {
    int roll = random.nextInt(100);
    List<SimGroupMember> live = live();
    SimGroupMember m = live.isEmpty() ? null : live.get(random.nextInt(live.size()));
    if (roll < 25) {
      // Many more connections than in the data path's runs: a burst keeps each queue moving.
      for (int i = random.nextInt(12); i >= 0; i--) {
        world.network.deliverSome(random);
      }
    } else if (roll < 40) {
      for (int i = random.nextInt(4); i >= 0; i--) {
        world.runSomeTurn();
      }
    } else if (roll < 44) {
      world.connectSomething();
    } else if (roll < 54) {
      runSomeClientTurn();
    } else if (roll < 64 && m != null) {
      m.threadTurn();
    } else if (roll < 74 && m != null && m.wants && !m.stalled) {
      m.poll(1 + random.nextInt(4));
    } else if (roll < 78) {
      world.clock.advance(1 + random.nextInt(25));
    } else if (roll < 85) {
      world.operations.append(readColor);
    } else if (roll < 94 && m != null) {
      m.commit();
    } else if (random.nextInt(5) == 0) {
      fault(live, m);
    }
  }

  private void runSomeClientTurn() {
    List<SimGroupMember> busy = new ArrayList<>();
    for (SimGroupMember m : members) {
      if (m.client.hasTasks()) {
        busy.add(m);
      }
    }
    if (!busy.isEmpty()) {
      busy.get(random.nextInt(busy.size())).client.runTasks();
    }
  }

  private void fault(List<SimGroupMember> live, SimGroupMember m) {
    int roll = random.nextInt(6);
    if (roll == 0 && live.size() < MAX_LIVE) {
      start();
    } else if (roll == 1 && m != null) {
      world.trace.note("crash group member " + m.id);
      m.crash();
      crashes++;
    } else if (roll == 2 && m != null && m.wants) {
      m.leave();
      leaves++;
    } else if (roll == 3 && m != null && !m.wants) {
      m.subscribe();
    } else if (roll == 4 && m != null) {
      m.stalled = !m.stalled; // stops polling (past max.poll.interval.ms, often) or resumes
      world.trace.note("group member " + m.id + (m.stalled ? " stalls" : " polls again"));
      stalls += m.stalled ? 1 : 0;
    } else if (roll == 5 && m != null) {
      world.trace.note("close group member " + m.id);
      m.close();
      closes++;
    }
  }

  // ---------------------------------------------------------------- healing

  /**
   * Member faults stop: stalled members poll again, members that left join again, and if none is
   * alive one starts; once the group converged, one more starts and it must converge again. Every
   * live member then runs its thread, polls and commits what moved, with virtual time passing
   * whenever nothing else moves, until the group converges; within {@link #CONVERGE_WITHIN_MS} or
   * the run fails.
   */
  @Override
  public void healAndCheck() {
    world.trace.note("heal the group");
    for (SimGroupMember m : live()) {
      m.stalled = false;
      if (!m.wants) {
        m.subscribe();
      }
    }
    if (live().isEmpty()) {
      start();
    }
    if (converge()) {
      // A late joiner: it reads the group log from its start, which the leader may have trimmed
      // by now, so it must resume from the checkpoint the trimmed log starts with.
      world.trace.note("a late member joins");
      start();
      converge();
    }
  }

  /** Runs the group until it converges: true, or false after failing the run. */
  private boolean converge() {
    long deadline = world.clock.nowMs() + CONVERGE_WITHIN_MS;
    while (true) {
      boolean moved = world.connectAll();
      moved |= world.network.deliverAll(world::afterEvent);
      moved |= world.runAllTurns();
      for (SimGroupMember m : members) {
        if (m.client.hasTasks()) {
          m.client.runTasks();
          moved = true;
        }
      }
      for (SimGroupMember m : live()) {
        moved |= m.threadTurn() > 0;
        moved |= m.poll(Integer.MAX_VALUE) > 0;
        if (m.uncommitted()) {
          moved |= m.commit();
        }
      }
      world.afterEvent();
      if (!moved) {
        String missing = notConverged();
        if (missing == null) {
          return true;
        }
        if (world.clock.nowMs() > deadline) {
          world.fail(
              missing.startsWith("not processed")
                  ? Invariant.GROUP_PROCESSED_ALL
                  : Invariant.GROUP_CONVERGES,
              "not converged " + CONVERGE_WITHIN_MS + " ms after healing: " + missing);
          return false;
        }
        world.clock.fireNext();
      }
    }
  }

  /** What keeps the group from having converged, or null. */
  private String notConverged() {
    GroupState state = referee.state;
    List<String> live = live().stream().map(m -> m.id).sorted().toList();
    List<String> inGroup = state.members().stream().map(GroupState.Member::id).sorted().toList();
    if (!inGroup.equals(live)) {
      return "the group's members are " + inGroup + ", the live ones " + live;
    }
    if (state.needsAssignment()) {
      return "generation " + state.generation() + " has no assignment yet";
    }
    Map<String, Integer> counts = new TreeMap<>();
    for (Shard shard : world.topology.shardsInSubtree(readColor.id())) {
      ColorShard cs = ColorShard.of(READ_COLOR, shard.id());
      GroupState.Owner owner = state.owners().get(cs);
      if (owner == null || !live.contains(owner.member())) {
        return cs + " is owned by " + owner + ", not by a live member";
      }
      counts.merge(owner.member(), 1, Integer::sum);
    }
    int most = counts.values().stream().max(Integer::compare).orElse(0);
    int least =
        counts.size() < live.size() ? 0 : counts.values().stream().min(Integer::compare).orElse(0);
    if (most - least > 1) {
      return "the assignment is uneven: " + counts + " among " + live;
    }
    for (SimGroupMember m : live()) {
      if (m.logic.state().lastAppliedSn() != state.lastAppliedSn()) {
        return m.id
            + " applied the group log up to "
            + m.logic.state().lastAppliedSn()
            + " of "
            + state.lastAppliedSn();
      }
      Map<ColorShard, Long> owned = new TreeMap<>();
      state
          .owners()
          .forEach(
              (cs, o) -> {
                if (o.member().equals(m.id)) {
                  owned.put(cs, o.sinceGeneration());
                }
              });
      if (!m.adopted(owned)) {
        return m.id + " has not adopted " + owned;
      }
    }
    for (SimHistory.Acked a : world.history.acked.values()) {
      if (a.colorId() == readColor.id() && !referee.processed.contains(a.sn())) {
        return "not processed: " + a.payload() + " at " + Sn.describe(a.sn());
      }
    }
    SimSubscriber all = world.subscribers.get(READ_COLOR).get(0);
    for (int i = 0; i < all.size(); i++) {
      if (!referee.processed.contains(all.sn(i))) {
        return "not processed: " + all.payload(i) + " at " + Sn.describe(all.sn(i));
      }
    }
    return null;
  }

  String summary() {
    return String.format(
        "%d group records, %d members started, %d crashed, %d left, %d closed, %d stalls;"
            + " %d commits accepted,"
            + " %d rejected (%d told), %d records processed (%d again); %d valid checkpoints,"
            + " %d trims (%d done), %d resumed from a checkpoint",
        referee.recordsApplied,
        members.size(),
        crashes,
        leaves,
        closes,
        stalls,
        referee.commitsAccepted,
        referee.commitsRejected,
        referee.rejectionsTold,
        referee.processed.size(),
        referee.duplicates,
        referee.checkpoints,
        referee.trims,
        referee.trimsDone,
        referee.restores);
  }
}
