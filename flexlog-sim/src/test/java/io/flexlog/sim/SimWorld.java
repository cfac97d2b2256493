package io.flexlog.sim;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * A deterministic simulation of the whole data path: production sequencer nodes ({@link
 * SimSequencer}), replica nodes on real logs ({@link SimReplica}) and clients ({@link SimClient})
 * on a seeded in-memory network ({@link SimNetwork}) with virtual time ({@link SimClock}). Each
 * step is one random event: deliver frames on one connection, end a process's turn, append, read,
 * drain a subscription, connect, fire timers, and with faults on drop a connection, crash a process
 * (its log and durable epoch survive) or start it again.
 *
 * <p>After every step the invariants of {@link SimHistory} hold, or the run fails naming the seed
 * and the last events; the same seed replays the same run. At the end the faults stop, everything
 * is started and connected, and the run must become live: every client operation completes, every
 * subscription delivers every acknowledged record of its color, and every replica of a shard still
 * holds every record it acknowledged (asked directly by an {@link SimAuditor}). See
 * docs/testing.md.
 */
final class SimWorld {
  /** Which faults the network and the processes suffer. */
  enum Faults {
    NONE,
    /** Connections drop (in-flight frames are lost); processes stay up. */
    DROPS,
    /**
     * Connections drop; processes crash and restart, one at a time (the next crash waits for it).
     */
    CRASH_ONE,
    /**
     * Connections drop; any number of processes are down at once, sequencers and replicas alike.
     */
    CRASHES,
    /**
     * Connections drop; a sequencer and a replica of one of the shards it orders crash in the same
     * step (issue 16's combined crash), and restart in any order relative to each other and to the
     * other replicas' reconnections.
     */
    COMBINED,
    /** Failover: the leader of {@code global} crashes; a backup takes over after the lease. */
    LEADER_CRASH,
    /** Failover: the leader lives on but is cut from the metadata quorum; its lease runs out. */
    LEASE_EXPIRY,
    /** Failover: the leader is cut from the quorum and from some replicas, not from the others. */
    PARTITION,
    /**
     * Failover: a replica restarts or loses its sequencer link as the leader fails, and the next
     * leader fails while that replica syncs.
     */
    SYNC_TAKEOVER,
    /**
     * Failover in a sequencer tree: the leader of {@code global}, whose child colors live on other
     * sequencer nodes, crashes or is cut from the quorum; the children's routes must follow the
     * role to its new node (docs/architecture.md#sequencer-failover, "the tree heals").
     */
    TREE_LEADER_FAIL,
    /**
     * Failover in a three-level tree with a spare sequencer node: the leader of the middle color
     * (mostly), of {@code global} or of the leaf color crashes or is cut from the quorum; a route
     * may re-target to a node that only forwards the color further up.
     */
    DEEP_TREE_FAIL;

    /** Whether the mode runs with backup sequencer nodes, leases and a metadata quorum. */
    boolean failover() {
      return ordinal() >= LEADER_CRASH.ordinal();
    }
  }

  final long seed;
  final Random random;
  final Faults faults;
  final SimClock clock = new SimClock();
  final SimTrace trace = new SimTrace(clock);
  final SimNetwork network = new SimNetwork(trace);
  final SimHistory history = new SimHistory(this);
  final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  final int dedupWindow = 1 << 14;
  final long maxCounter;
  final Topology topology;

  /** The run's retention (a third of the seeds outside the group simulation), or none. */
  final SimRetention retention;

  private final String scenario;
  private final Path dataDir;

  final Map<Integer, SimSequencer> sequencers = new LinkedHashMap<>();
  final Map<Integer, SimReplica> replicas = new LinkedHashMap<>();
  final List<SimClient> clients = new ArrayList<>();
  final Map<String, List<SimSubscriber>> subscribers = new LinkedHashMap<>();
  final SimOperations operations = new SimOperations(this);

  /** Leases, quorum and cuts in the failover modes; null otherwise. */
  final SimFailover failover;

  private final SimFailoverFaults failoverFaults;
  private final SimFaults classicFaults = new SimFaults(this);
  private SimGuest guest;
  private final Set<Invariant> enforced;
  final Map<Invariant, Integer> violations = new EnumMap<>(Invariant.class);
  final Map<Invariant, String> firstViolations = new EnumMap<>(Invariant.class);
  long crashes;
  long combinedCrashes;
  long steps;

  SimWorld(long seed, Faults faults) {
    this(seed, faults, EnumSet.allOf(Invariant.class));
  }

  /**
   * @param enforced the invariants whose violation fails the run; others are only counted
   */
  SimWorld(long seed, Faults faults, Set<Invariant> enforced) {
    this(seed, faults, enforced, null);
  }

  /**
   * @param cluster picks the cluster from the world's random numbers; null: the mode's usual ones
   */
  SimWorld(
      long seed,
      Faults faults,
      Set<Invariant> enforced,
      Function<Random, SimScenarios.Scenario> cluster) {
    this.enforced = EnumSet.copyOf(enforced);
    this.seed = seed;
    this.random = new Random(seed);
    this.faults = faults;
    SimScenarios.Scenario s =
        cluster != null ? cluster.apply(random) : SimScenarios.forMode(faults, seed, random);
    this.retention = new SimRetention(this, seed, s.topology(), cluster == null);
    this.scenario = s.name() + (retention.enabled() ? ", " + retention.describe() : "");
    this.topology = retention.apply(s.topology());
    // A quarter of the runs exhaust epochs often. With failover, a leased role then asks its keeper
    // for a new epoch (docs/testing.md, "Sequencer failover"); those modes draw the limit from a
    // random of their own, so that a seed with the production limit runs as it did before.
    if (faults.failover()) {
      SplittableRandom limits = new SplittableRandom(seed);
      this.maxCounter = limits.nextInt(4) == 0 ? 5 + limits.nextInt(20) : Sn.MAX_COUNTER;
    } else {
      this.maxCounter = random.nextInt(4) == 0 ? 5 + random.nextInt(20) : Sn.MAX_COUNTER;
    }
    try {
      this.dataDir = Files.createTempDirectory(tmpRoot(), "flexlog-sim-" + seed + "-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (NodeAddress node : topology.nodes().values()) {
      if (node.kind() == NodeAddress.Kind.SEQUENCER) {
        sequencers.put(node.id(), new SimSequencer(node.id(), topology, this));
      } else {
        replicas.put(node.id(), new SimReplica(node.id(), dataDir.resolve("r" + node.id()), this));
      }
    }
    this.failover = faults.failover() ? new SimFailover(this) : null;
    this.failoverFaults = failover == null ? null : new SimFailoverFaults(this, failover);
    network.observe(history::onDeliver);
    trace.note("seed " + seed + ": " + scenario + ", maxCounter " + maxCounter + ", " + faults);
    sequencers.values().forEach(SimSequencer::start);
    replicas.values().forEach(SimReplica::start);
    for (int c = 0; c < 2; c++) {
      clients.add(new SimClient(c, this));
    }
    for (Color color : topology.colors()) {
      List<SimSubscriber> list = new ArrayList<>();
      for (SimClient client : clients) {
        list.add(client.subscribe(color));
      }
      if (color.isRoot()) {
        list.add(clients.get(0).subscribe(color));
      }
      subscribers.put(color.name(), list);
    }
  }

  private static Path tmpRoot() {
    Path shm = Path.of("/dev/shm");
    return Files.isDirectory(shm) && Files.isWritable(shm)
        ? shm
        : Path.of(System.getProperty("java.io.tmpdir"));
  }

  /** Lets {@code guest} act in a share of the steps and heal at the end. */
  void guest(SimGuest guest) {
    this.guest = guest;
  }

  void fail(String message) {
    throw new AssertionError(message);
  }

  /**
   * An invariant broke: the run fails if it enforces {@code invariant}; otherwise the violation is
   * counted (with its first message) and the run goes on.
   */
  void fail(Invariant invariant, String message) {
    if (enforced.contains(invariant)) {
      throw new AssertionError(invariant + ": " + message);
    }
    if (violations.merge(invariant, 1, Integer::sum) == 1) {
      firstViolations.put(invariant, message);
      trace.note("VIOLATION (counted, not enforced) " + invariant + ": " + message);
    }
  }

  void onIssued(int nodeId, int colorId, long firstSn, int count) {
    trace.note(
        "color "
            + colorId
            + " issues "
            + Sn.describe(firstSn)
            + " x"
            + count
            + " on node "
            + nodeId);
    history.onIssued(colorId, firstSn, count);
    if (failover != null) {
      failover.onIssued(nodeId, colorId, firstSn, count);
    }
  }

  // ---------------------------------------------------------------- running

  /** Runs {@code steps} random events, then heals everything and checks liveness and durability. */
  void run(int stepCount) {
    try {
      for (int i = 0; i < stepCount; i++) {
        trace.step = i;
        randomEvent();
        afterEvent();
        steps++;
      }
      new SimHealer(this, operations).healAndCheck();
      if (guest != null) {
        guest.healAndCheck();
      }
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError(failureReport(e.toString()), e);
    } finally {
      close();
    }
  }

  private String failureReport(String problem) {
    return "seed "
        + seed
        + " ("
        + scenario
        + ", faults "
        + faults
        + ") failed at step "
        + trace.step
        + ": "
        + problem
        + "\nreplay: mvn -pl flexlog-sim -am verify -Dtest="
        + (guest != null
            ? guest.testName()
            : faults.failover() ? "FailoverSimulationTest" : "DataPathSimulationTest")
        + " -Dflexlog.sim.seed="
        + seed
        + "\nlast events:"
        + trace.lastEvents();
  }

  private void randomEvent() {
    if (guest != null && random.nextInt(100) < guest.sharePercent()) {
      guest.event();
      return;
    }
    int roll = random.nextInt(100);
    if (roll < 40) {
      network.deliverSome(random);
    } else if (roll < 60) {
      runSomeTurn();
    } else if (roll < 66) {
      operations.append();
    } else if (roll < 68) {
      operations.appendBatch();
    } else if (roll < 70) {
      operations.appendGroup();
    } else if (roll < 74) {
      operations.read();
    } else if (roll < 80) {
      drainSomeSubscriber();
    } else if (roll < 88) {
      connectSomething();
    } else if (roll < 94) {
      long now = clock.fireNext();
      if (failover != null) {
        clock.advance(random.nextInt(200)); // leases need time to run out
        now = clock.nowMs();
      }
      if (now >= 0) {
        trace.note("time " + now);
      }
    } else if (failoverFaults != null) {
      failoverFaults.fault();
    } else if (faults != Faults.NONE) {
      classicFaults.fault();
    }
  }

  /** What follows every event: closes asked for, finished operations, subscriber agreement. */
  void afterEvent() {
    if (failover != null) {
      failover.checkIssuers("step " + trace.step);
    }
    network.closePending();
    operations.collect();
    retention.check();
    for (Map.Entry<String, List<SimSubscriber>> e : subscribers.entrySet()) {
      history.checkSubscribers(e.getKey(), e.getValue());
    }
  }

  void runSomeTurn() {
    List<Runnable> busy = new ArrayList<>();
    for (SimSequencer s : sequencers.values()) {
      if (s.life != null && s.life.hasTasks()) {
        busy.add(() -> s.life.runTasks());
      }
    }
    for (SimReplica r : replicas.values()) {
      if (r.life != null && r.life.hasTasks()) {
        busy.add(() -> r.life.runTasks());
      }
    }
    for (SimClient c : clients) {
      if (c.hasTasks()) {
        busy.add(c::runTasks);
      }
    }
    if (!busy.isEmpty()) {
      busy.get(random.nextInt(busy.size())).run();
    }
  }

  /** Runs every process's queued tasks; true if any ran. */
  boolean runAllTurns() {
    boolean ran = false;
    for (SimSequencer s : sequencers.values()) {
      if (s.life != null && s.life.hasTasks()) {
        s.life.runTasks();
        ran = true;
      }
    }
    for (SimReplica r : replicas.values()) {
      if (r.life != null && r.life.hasTasks()) {
        r.life.runTasks();
        ran = true;
      }
    }
    for (SimClient c : clients) {
      if (c.hasTasks()) {
        c.runTasks();
        ran = true;
      }
    }
    return ran;
  }

  private void drainSomeSubscriber() {
    List<SimSubscriber> all = new ArrayList<>();
    subscribers.values().forEach(all::addAll);
    SimSubscriber s = all.get(random.nextInt(all.size()));
    int taken = s.drain(this);
    if (taken > 0) {
      trace.note(s + " takes " + taken + " up to " + Sn.describe(s.lastSn()));
    }
  }

  // ---------------------------------------------------------------- connections

  void connectSomething() {
    List<Runnable> options = connectOptions();
    if (!options.isEmpty()) {
      options.get(random.nextInt(options.size())).run();
    }
  }

  /** Connects every wanted connection whose target is up; true if any was made. */
  boolean connectAll() {
    List<Runnable> options = connectOptions();
    options.forEach(Runnable::run);
    return !options.isEmpty();
  }

  private List<Runnable> connectOptions() {
    List<Runnable> options = new ArrayList<>();
    for (SimSequencer child : sequencers.values()) {
      if (child.life == null) {
        continue;
      }
      for (int parentId : child.life.wantedParents) {
        SimSequencer parent = sequencers.get(parentId);
        if (parent.life != null && !network.connected(child.life, parent.life)) {
          SimSequencer.Life from = child.life;
          SimSequencer.Life to = parent.life;
          options.add(
              () -> {
                SimLink link = network.connect(from, to);
                to.accept(link.acceptor);
                from.connectedToParent(parentId, link.initiator);
              });
        }
      }
    }
    for (SimReplica r : replicas.values()) {
      if (r.life == null) {
        continue;
      }
      for (Map.Entry<Integer, int[]> e : r.shardsBySequencer(r.topology).entrySet()) {
        SimSequencer s = sequencers.get(e.getKey());
        if (s.life != null
            && !r.life.sequencers.containsKey(e.getKey())
            && (failover == null || !failover.cut(s.id, r.id))) {
          SimReplica.Life from = r.life;
          SimSequencer.Life to = s.life;
          int[] shards = e.getValue();
          options.add(
              () -> {
                SimLink link = network.connect(from, to);
                to.accept(link.acceptor);
                from.connectedToSequencer(s.id, shards, link.initiator);
              });
        }
      }
    }
    return options;
  }

  /** A replica opens a connection to a peer replica node; null if the peer is down. */
  SimLink.End connectPeer(SimReplica.Life from, int nodeId) {
    SimReplica peer = replicas.get(nodeId);
    if (peer == null || peer.life == null) {
      return null;
    }
    return network.connect(from, peer.life).initiator;
  }

  /** A client opens a connection to a replica node; null if the node is down. */
  SimLink.End connectClient(SimLink.Endpoint from, int nodeId) {
    SimReplica replica = replicas.get(nodeId);
    if (replica == null || replica.life == null) {
      return null;
    }
    return network.connect(from, replica.life).initiator;
  }

  // ---------------------------------------------------------------- faults

  /** Starts every process that is down. */
  boolean startAll() {
    boolean started = false;
    for (SimSequencer s : sequencers.values()) {
      if (!s.up()) {
        s.start();
        started = true;
      }
    }
    for (SimReplica r : replicas.values()) {
      if (!r.up()) {
        r.start();
        started = true;
      }
    }
    return started;
  }

  private void close() {
    for (SimReplica r : replicas.values()) {
      if (r.up()) {
        r.life.alive = false;
        r.life.storage.close();
      }
    }
    try (var walk = Files.walk(dataDir)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // best effort: a temp directory left behind does not change the result
    }
  }

  SimFailoverFaults failoverFaults() {
    return failoverFaults;
  }

  long operationsAcked() {
    return operations.acked;
  }

  long groupsAcked() {
    return operations.groupsAcked;
  }

  String summary() {
    return String.format(
        "seed %d (%s, %s): %d steps, %d SNs issued, %d frames, %d drops, %d crashes,%s %s",
        seed,
        scenario,
        faults,
        steps,
        history.issued,
        network.frames,
        network.drops,
        crashes,
        failover == null
            ? ""
            : String.format(
                " %d takeovers, %d retakes, %d quorum proposals or answers lost,",
                failover.takeovers, failover.retakes, failover.proposalsLost),
        operations.summary());
  }
}
