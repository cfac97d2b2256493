package io.flexlog.sim;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.AppendAckDescriptor;
import io.flexlog.core.protocol.AppendBatchAckDescriptor;
import io.flexlog.core.protocol.AppendBatchDescriptor;
import io.flexlog.core.protocol.AppendDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
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
    COMBINED
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
  private final String scenario;
  private final Path dataDir;

  final Map<Integer, SimSequencer> sequencers = new LinkedHashMap<>();
  final Map<Integer, SimReplica> replicas = new LinkedHashMap<>();
  final List<SimClient> clients = new ArrayList<>();
  final Map<String, List<SimSubscriber>> subscribers = new LinkedHashMap<>();
  private final SimOperations operations = new SimOperations(this);
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
    this.enforced = EnumSet.copyOf(enforced);
    this.seed = seed;
    this.random = new Random(seed);
    this.faults = faults;
    SimScenarios.Scenario s = SimScenarios.forSeed(seed, random);
    this.scenario = s.name();
    this.topology = s.topology();
    this.maxCounter = random.nextInt(4) == 0 ? 5 + random.nextInt(20) : Sn.MAX_COUNTER;
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
    network.observe(this::observe);
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

  void onIssued(int colorId, long firstSn, int count) {
    history.onIssued(colorId, firstSn, count);
    trace.note("color " + colorId + " issues " + Sn.describe(firstSn) + " x" + count);
  }

  // Appends going to replicas carry the token's payload; acks coming back bind it to an SN.
  private void observe(SimLink.End to, ByteBuf frame) {
    byte type = FrameDescriptor.type(frame);
    if (type == MessageType.APPEND) {
      history.onAppendSent(
          new SimHistory.Token(
              AppendDescriptor.tokenSession(frame), AppendDescriptor.tokenSequence(frame)),
          AppendDescriptor.payload(frame).toString(StandardCharsets.UTF_8));
    } else if (type == MessageType.APPEND_BATCH) {
      int at = AppendBatchDescriptor.payloadsStart(frame);
      for (int i = 0; i < AppendBatchDescriptor.count(frame); i++) {
        int length = AppendBatchDescriptor.payloadLength(frame, i);
        history.onAppendSent(
            new SimHistory.Token(
                AppendBatchDescriptor.tokenSession(frame),
                AppendBatchDescriptor.tokenSequence(frame, i)),
            frame.toString(at, length, StandardCharsets.UTF_8));
        at += length;
      }
    } else if (type == MessageType.APPEND_BATCH_ACK) {
      for (int i = 0; i < AppendBatchAckDescriptor.count(frame); i++) {
        if (AppendBatchAckDescriptor.errorCode(frame, i) == 0) {
          history.onAppendAck(
              AppendBatchAckDescriptor.replicaNodeId(frame),
              new SimHistory.Token(
                  AppendBatchAckDescriptor.tokenSession(frame),
                  AppendBatchAckDescriptor.tokenSequence(frame, i)),
              AppendBatchAckDescriptor.colorId(frame),
              AppendBatchAckDescriptor.sn(frame, i));
        }
      }
    } else if (type == MessageType.APPEND_ACK) {
      history.onAppendAck(
          AppendAckDescriptor.replicaNodeId(frame),
          new SimHistory.Token(
              AppendAckDescriptor.tokenSession(frame), AppendAckDescriptor.tokenSequence(frame)),
          AppendAckDescriptor.colorId(frame),
          AppendAckDescriptor.sn(frame));
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
        + "\nreplay: mvn -pl flexlog-sim -am verify -Dtest=DataPathSimulationTest"
        + " -Dflexlog.sim.seed="
        + seed
        + "\nlast events:"
        + trace.lastEvents();
  }

  private void randomEvent() {
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
      if (now >= 0) {
        trace.note("time " + now);
      }
    } else if (faults != Faults.NONE) {
      fault();
    }
  }

  /** What follows every event: closes asked for, finished operations, subscriber agreement. */
  void afterEvent() {
    network.closePending();
    operations.collect();
    for (Map.Entry<String, List<SimSubscriber>> e : subscribers.entrySet()) {
      history.checkSubscribers(e.getKey(), e.getValue());
    }
  }

  private void runSomeTurn() {
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

  private void connectSomething() {
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
      for (Map.Entry<Integer, int[]> e : r.shardsBySequencer(topology).entrySet()) {
        SimSequencer s = sequencers.get(e.getKey());
        if (s.life != null && !r.life.sequencers.containsKey(e.getKey())) {
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

  private void fault() {
    int roll = random.nextInt(10);
    List<SimLink> links = network.links();
    if (roll < 6 && !links.isEmpty()) {
      SimLink link = links.get(random.nextInt(links.size()));
      network.drop(link, "drop " + link.describe());
    } else if (roll < 8 && faults == Faults.CRASHES) {
      crashSomething();
    } else if (roll < 8 && faults == Faults.COMBINED) {
      crashSequencerWithReplica();
    } else if (roll < 8 && faults == Faults.CRASH_ONE && allUp()) {
      crashSomething();
    } else {
      restartSomething();
    }
  }

  private boolean allUp() {
    return sequencers.values().stream().allMatch(SimSequencer::up)
        && replicas.values().stream().allMatch(SimReplica::up);
  }

  private void crashSomething() {
    List<Runnable> options = new ArrayList<>();
    for (SimSequencer s : sequencers.values()) {
      if (s.up()) {
        options.add(s::crash);
      }
    }
    for (SimReplica r : replicas.values()) {
      if (r.up()) {
        options.add(r::crash);
      }
    }
    if (!options.isEmpty()) {
      crashes++;
      options.get(random.nextInt(options.size())).run();
    }
  }

  /** Crashes an up sequencer and an up replica of a shard it orders, in one step. */
  private void crashSequencerWithReplica() {
    List<Runnable> options = new ArrayList<>();
    for (SimSequencer s : sequencers.values()) {
      if (!s.up()) {
        continue;
      }
      for (SimReplica r : replicas.values()) {
        if (r.up() && r.shardsBySequencer(topology).containsKey(s.id)) {
          options.add(
              () -> {
                trace.note("combined crash: sequencer " + s.id + " with replica " + r.id);
                s.crash();
                r.crash();
              });
        }
      }
    }
    if (!options.isEmpty()) {
      crashes += 2;
      combinedCrashes++;
      options.get(random.nextInt(options.size())).run();
    }
  }

  private void restartSomething() {
    List<Runnable> options = new ArrayList<>();
    for (SimSequencer s : sequencers.values()) {
      if (!s.up()) {
        options.add(s::start);
      }
    }
    for (SimReplica r : replicas.values()) {
      if (!r.up()) {
        options.add(r::start);
      }
    }
    if (!options.isEmpty()) {
      options.get(random.nextInt(options.size())).run();
    }
  }

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

  long operationsAcked() {
    return operations.acked;
  }

  long groupsAcked() {
    return operations.groupsAcked;
  }

  String summary() {
    return String.format(
        "seed %d (%s, %s): %d steps, %d SNs issued, %d frames, %d drops, %d crashes, %s",
        seed,
        scenario,
        faults,
        steps,
        history.issued,
        network.frames,
        network.drops,
        crashes,
        operations.summary());
  }
}
