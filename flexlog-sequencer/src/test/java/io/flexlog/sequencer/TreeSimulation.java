package io.flexlog.sequencer;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.Frames;
import io.flexlog.sequencer.ordering.OrderingService;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * A deterministic simulation of the sequencer tree (STYLE rule 14, after Kafka's
 * RaftEventSimulationTest): several {@link SimNode}s running the production {@link
 * OrderingService}, fake {@link SimReplica}s, and a seeded in-memory network of {@link
 * SimConnection}s, FIFO per connection and arbitrarily interleaved across connections. Each step is
 * one random event: deliver frames on one connection, end a node's turn, append, let a replica ask
 * for SNs, fire timers, connect, and with faults on drop a connection, crash a node (losing its
 * memory; its epoch is durable) or start it again, or hand a node a newer topology.
 *
 * <p>After every step the invariants are checked: per color, SNs are issued strictly increasing (so
 * never twice, and never from an older epoch after a newer one), no SN belongs to two tokens, a
 * leaf incarnation gives a token one SN, and replicas see watermarks only after the responses they
 * cover (see {@link SimReplica}). At the end the faults stop, the network heals, and every token
 * must have an SN at every replica of its shard, covered by a watermark. A failure names the seed
 * and the last events.
 */
final class TreeSimulation {
  /** A token: client session and sequence. */
  record TokenKey(long session, long sequence) {
    @Override
    public String toString() {
      return session + ":" + sequence;
    }
  }

  private record Assignment(int colorId, TokenKey token, int leafNodeId, int leafIncarnation) {}

  private record ColorSn(int colorId, long sn) {}

  /** An append that reached some replicas of its shard and is still on its way to this one. */
  private record LateAppend(SimReplica replica, TokenKey token) {}

  private record Timer(long dueMs, long seq, SimNode.Runtime runtime, Runnable task) {}

  /** Which faults the network and the nodes suffer. */
  enum Faults {
    NONE,
    /** Connections drop (in-flight frames are lost), nodes stay up. */
    DROPS,
    /** Connections drop and nodes crash and restart. */
    CRASHES
  }

  final long seed;
  final Random random;
  final SimTopologies.Scenario scenario;
  final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  final int dedupWindow = 1 << 14;
  final long maxCounter;
  private final Faults faults;

  final Map<Integer, SimNode> nodes = new LinkedHashMap<>();
  final List<SimReplica> replicas = new ArrayList<>();
  private final List<SimConnection> connections = new ArrayList<>();
  private final PriorityQueue<Timer> timers =
      new PriorityQueue<>(
          (a, b) ->
              a.dueMs != b.dueMs ? Long.compare(a.dueMs, b.dueMs) : Long.compare(a.seq, b.seq));
  private final ArrayDeque<String> trace = new ArrayDeque<>();
  private long nowMs;
  private long timerSeq;
  private int connectionSeq;
  private long tokenSeq;
  private int step;

  private final Map<Integer, Long> lastIssued = new HashMap<>();
  private final Map<ColorSn, TokenKey> owners = new HashMap<>();
  private final Map<Assignment, Long> assignments = new HashMap<>();
  private final Map<TokenKey, Integer> tokenColors = new HashMap<>();
  private final Map<TokenKey, Shard> tokenShards = new HashMap<>();
  private final List<LateAppend> inFlightAppends = new ArrayList<>();
  long issued;
  long crashes;
  long drops;

  TreeSimulation(long seed, Faults faults) {
    this.seed = seed;
    this.random = new Random(seed);
    this.faults = faults;
    this.scenario = SimTopologies.forSeed(seed, random);
    this.maxCounter = random.nextInt(4) == 0 ? 5 + random.nextInt(20) : Sn.MAX_COUNTER;
    Topology initial = scenario.initial();
    for (var node : initial.nodes().values()) {
      if (node.kind() == io.flexlog.core.model.NodeAddress.Kind.SEQUENCER) {
        nodes.put(node.id(), new SimNode(node.id(), initial, this));
      }
    }
    Topology last = scenario.versions().get(scenario.versions().size() - 1);
    for (Shard shard : last.shards()) {
      int leaf = last.color(shard.colorId()).orElseThrow().sequencerId();
      for (int replica : shard.replicaNodeIds()) {
        replicas.add(new SimReplica(replica, shard, leaf, this));
      }
    }
    for (SimNode node : nodes.values()) {
      node.start();
    }
    note("scenario " + scenario.name() + ", maxCounter " + maxCounter + ", faults " + faults);
  }

  long nowMs() {
    return nowMs;
  }

  void addTimer(long delayMs, SimNode.Runtime runtime, Runnable task) {
    timers.add(new Timer(nowMs + delayMs, timerSeq++, runtime, task));
  }

  // ---------------------------------------------------------------- running

  /** Runs {@code steps} random events, then heals the network and checks liveness. */
  void run(int steps) {
    try {
      for (step = 0; step < steps; step++) {
        randomEvent();
        afterEvent();
      }
      heal();
      checkQuiescent();
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError(failureReport(e.toString()), e);
    }
  }

  void fail(String message) {
    throw new AssertionError(message);
  }

  private String failureReport(String problem) {
    StringBuilder report =
        new StringBuilder(
                "seed "
                    + seed
                    + " ("
                    + scenario.name()
                    + ", faults "
                    + faults
                    + ") failed at step "
                    + step)
            .append(": ")
            .append(problem)
            .append("\nlast events:");
    for (String line : trace) {
      report.append("\n  ").append(line);
    }
    return report.toString();
  }

  private void note(String event) {
    if (trace.size() == 400) {
      trace.removeFirst();
    }
    trace.addLast(step + " t=" + nowMs + " " + event);
  }

  private void randomEvent() {
    int roll = random.nextInt(100);
    if (roll < 40) {
      deliverSome();
    } else if (roll < 60) {
      endSomeTurn();
    } else if (roll < 68) {
      append();
    } else if (roll < 72) {
      lateAppend();
    } else if (roll < 84) {
      replicaAsks(false);
    } else if (roll < 86) {
      replicaAsks(true);
    } else if (roll < 91) {
      connectSomething();
    } else if (roll < 94) {
      fireTimers();
    } else if (roll < 95) {
      growTopology();
    } else if (faults != Faults.NONE) {
      fault();
    }
  }

  private void afterEvent() {
    for (int i = 0; i < connections.size(); i++) {
      SimConnection c = connections.get(i);
      c.collectFromAcceptor();
      if (c.open && !c.channel.isActive()) {
        fail("node " + c.acceptor.id + " closed " + c.describe() + " by itself");
      }
    }
  }

  private void deliverSome() {
    List<SimConnection> busy = new ArrayList<>();
    for (SimConnection c : connections) {
      if (c.hasQueued()) {
        busy.add(c);
      }
    }
    if (busy.isEmpty()) {
      return;
    }
    SimConnection c = busy.get(random.nextInt(busy.size()));
    boolean toAcceptor =
        c.toInitiator.isEmpty() || (!c.toAcceptor.isEmpty() && random.nextBoolean());
    int frames = random.nextBoolean() ? 1 : 1 + random.nextInt(4);
    for (int i = 0; i < frames && c.open; i++) {
      if (toAcceptor && !c.toAcceptor.isEmpty()) {
        deliverToAcceptor(c);
      } else if (!toAcceptor && !c.toInitiator.isEmpty()) {
        deliverToInitiator(c);
      }
    }
  }

  private void deliverToAcceptor(SimConnection c) {
    ByteBuf frame = c.toAcceptor.poll();
    note("deliver " + describe(frame) + " on " + c.describe());
    c.channel.writeInbound(frame);
  }

  private void deliverToInitiator(SimConnection c) {
    ByteBuf frame = c.toInitiator.poll();
    note("deliver " + describe(frame) + " back on " + c.describe());
    try {
      if (c.replica != null) {
        c.replica.onFrame(frame);
      } else {
        Frames.validate(frame);
        c.child.service.onParentFrame(c.childLink, frame);
      }
    } finally {
      frame.release();
    }
  }

  private static String describe(ByteBuf frame) {
    return io.flexlog.core.protocol.MessageType.name(
        io.flexlog.core.protocol.FrameDescriptor.type(frame));
  }

  private void endSomeTurn() {
    List<SimNode> busy = new ArrayList<>();
    for (SimNode n : nodes.values()) {
      if (n.hasTasks()) {
        busy.add(n);
      }
    }
    if (!busy.isEmpty()) {
      SimNode node = busy.get(random.nextInt(busy.size()));
      note("end of turn on " + node);
      node.runTasks();
    }
  }

  private void append() {
    List<Shard> shards = appendableShards();
    if (shards.isEmpty()) {
      return;
    }
    Shard shard = shards.get(random.nextInt(shards.size()));
    Topology t = nodes.get(leafOf(shard)).topology;
    List<Integer> colors = new ArrayList<>();
    for (Color c = t.color(shard.colorId()).orElseThrow();
        c != null;
        c = c.isRoot() ? null : t.color(c.parentId()).orElseThrow()) {
      colors.add(c.id());
    }
    int color = colors.get(random.nextInt(colors.size()));
    TokenKey token = new TokenKey(shard.id(), ++tokenSeq);
    tokenColors.put(token, color);
    tokenShards.put(token, shard);
    List<SimReplica> holders = replicasOf(shard);
    SimReplica first = holders.get(random.nextInt(holders.size()));
    first.receive(token, color);
    for (SimReplica r : holders) {
      if (r != first) {
        if (random.nextBoolean()) {
          r.receive(token, color);
        } else {
          inFlightAppends.add(new LateAppend(r, token));
        }
      }
    }
    note("append " + token + " of color " + color + " to shard " + shard.id());
  }

  // Shards whose leaf node knows them: a client learns of a shard from the same topology.
  private List<Shard> appendableShards() {
    List<Shard> shards = new ArrayList<>();
    for (SimReplica r : replicas) {
      if (!shards.contains(r.shard)
          && nodes.get(r.leafNodeId).topology.shard(r.shard.id()).isPresent()) {
        shards.add(r.shard);
      }
    }
    return shards;
  }

  private int leafOf(Shard shard) {
    for (SimReplica r : replicas) {
      if (r.shard.id() == shard.id()) {
        return r.leafNodeId;
      }
    }
    throw new IllegalStateException("no replica of shard " + shard.id());
  }

  private List<SimReplica> replicasOf(Shard shard) {
    List<SimReplica> list = new ArrayList<>();
    for (SimReplica r : replicas) {
      if (r.shard.id() == shard.id()) {
        list.add(r);
      }
    }
    return list;
  }

  private void lateAppend() {
    if (!inFlightAppends.isEmpty()) {
      int i = random.nextInt(inFlightAppends.size());
      LateAppend late = inFlightAppends.get(i);
      inFlightAppends.set(i, inFlightAppends.get(inFlightAppends.size() - 1));
      inFlightAppends.remove(inFlightAppends.size() - 1);
      late.replica().receive(late.token(), tokenColors.get(late.token()));
      note("late append " + late.token() + " reaches " + late.replica());
    }
  }

  private void replicaAsks(boolean again) {
    List<SimReplica> ready = new ArrayList<>();
    for (SimReplica r : replicas) {
      if (r.conn != null) {
        ready.add(r);
      }
    }
    if (!ready.isEmpty()) {
      SimReplica r = ready.get(random.nextInt(ready.size()));
      if (r.sendSome(random, again)) {
        note(r + (again ? " asks again" : " asks"));
      }
    }
  }

  private void connectSomething() {
    List<Runnable> options = new ArrayList<>();
    for (SimNode child : nodes.values()) {
      if (!child.up) {
        continue;
      }
      for (int parentId : child.runtime.wantedParents) {
        SimNode parent = nodes.get(parentId);
        if (parent.up && !connected(child, parent)) {
          options.add(() -> connectChild(child, parent));
        }
      }
    }
    for (SimReplica r : replicas) {
      SimNode leaf = nodes.get(r.leafNodeId);
      if (r.conn == null && leaf.up && leaf.topology.shard(r.shard.id()).isPresent()) {
        options.add(() -> connectReplica(r, leaf));
      }
    }
    if (!options.isEmpty()) {
      options.get(random.nextInt(options.size())).run();
    }
  }

  private boolean connected(SimNode child, SimNode parent) {
    for (SimConnection c : connections) {
      if (c.child == child && c.acceptor == parent) {
        return true;
      }
    }
    return false;
  }

  private void connectChild(SimNode child, SimNode parent) {
    SimConnection c = new SimConnection(++connectionSeq, parent, null, child);
    connections.add(c);
    note("connect " + c.describe());
    c.childLink = child.service.onParentConnected(parent.id, c.initiatorOutbound());
  }

  private void connectReplica(SimReplica r, SimNode leaf) {
    SimConnection c = new SimConnection(++connectionSeq, leaf, r, null);
    connections.add(c);
    note("connect " + c.describe());
    r.onConnected(c);
  }

  private void fireTimers() {
    Timer next = timers.peek();
    if (next == null) {
      return;
    }
    nowMs = Math.max(nowMs, next.dueMs);
    note("time " + nowMs);
    while (!timers.isEmpty() && timers.peek().dueMs <= nowMs) {
      Timer t = timers.poll();
      if (!t.runtime.dead) {
        t.task.run();
      }
    }
  }

  private void growTopology() {
    List<Topology> versions = scenario.versions();
    List<SimNode> behind = new ArrayList<>();
    for (SimNode n : nodes.values()) {
      if (n.topology.version() < versions.size()) {
        behind.add(n);
      }
    }
    if (!behind.isEmpty()) {
      SimNode n = behind.get(random.nextInt(behind.size()));
      Topology next = versions.get((int) n.topology.version());
      note("topology version " + next.version() + " reaches " + n);
      n.updateTopology(next);
    }
  }

  private void fault() {
    int roll = random.nextInt(10);
    if (roll < 6 && !connections.isEmpty()) {
      // Half of the drops hit links between sequencer nodes, where re-sent requests matter most.
      List<SimConnection> pool = connections;
      List<SimConnection> tree = connections.stream().filter(c -> c.child != null).toList();
      if (!tree.isEmpty() && random.nextBoolean()) {
        pool = tree;
      }
      SimConnection c = pool.get(random.nextInt(pool.size()));
      note("drop " + c.describe());
      drops++;
      close(c);
    } else if (roll < 7 && faults == Faults.CRASHES) {
      List<SimNode> up = nodes.values().stream().filter(n -> n.up).toList();
      if (!up.isEmpty()) {
        SimNode n = up.get(random.nextInt(up.size()));
        note("crash " + n);
        crashes++;
        crash(n);
      }
    } else {
      List<SimNode> down = nodes.values().stream().filter(n -> !n.up).toList();
      if (!down.isEmpty()) {
        SimNode n = down.get(random.nextInt(down.size()));
        n.start();
        note("start " + n + " in epoch " + n.durableEpoch);
      }
    }
  }

  private void crash(SimNode node) {
    for (SimConnection c : new ArrayList<>(connections)) {
      if (c.acceptor == node || c.child == node) {
        close(c);
      }
    }
    node.crash();
  }

  private void close(SimConnection c) {
    connections.remove(c);
    c.close();
    if (c.replica != null) {
      c.replica.onClosed();
    } else if (c.child.up && c.child.incarnation == c.childIncarnation) {
      c.child.service.onParentClosed(c.childLink);
    }
  }

  // ---------------------------------------------------------------- healing

  /** Stops faults, brings everything up and runs until nothing moves. */
  private void heal() {
    note("heal");
    for (int round = 0; round < 100_000; round++) {
      for (SimNode n : nodes.values()) {
        if (!n.up) {
          n.start();
        }
        for (Topology v : scenario.versions()) {
          n.updateTopology(v);
        }
      }
      boolean moved = connectAll();
      while (!inFlightAppends.isEmpty()) {
        lateAppend();
        moved = true;
      }
      for (SimReplica r : replicas) {
        if (r.conn != null && !r.unrequested().isEmpty()) {
          moved |= r.sendSome(random, false);
        }
      }
      for (SimConnection c : new ArrayList<>(connections)) {
        while (c.open && c.hasQueued()) {
          moved = true;
          if (!c.toAcceptor.isEmpty()) {
            deliverToAcceptor(c);
          } else {
            deliverToInitiator(c);
          }
          afterEvent();
        }
      }
      for (SimNode n : nodes.values()) {
        if (n.hasTasks()) {
          moved = true;
          n.runTasks();
        }
      }
      afterEvent();
      if (!moved) {
        if (timers.isEmpty()) {
          return;
        }
        fireTimers();
      }
    }
    fail("the healed network never became quiet");
  }

  private boolean connectAll() {
    boolean connected = false;
    for (SimNode child : nodes.values()) {
      for (int parentId : child.runtime.wantedParents) {
        SimNode parent = nodes.get(parentId);
        if (!connected(child, parent)) {
          connectChild(child, parent);
          connected = true;
        }
      }
    }
    for (SimReplica r : replicas) {
      if (r.conn == null) {
        connectReplica(r, nodes.get(r.leafNodeId));
        connected = true;
      }
    }
    return connected;
  }

  private void checkQuiescent() {
    checkQuietNetwork();
    if (crashes == 0) {
      checkNoHoles();
    }
    for (SimReplica r : replicas) {
      for (SimReplica.Entry e : r.entries.values()) {
        if (!e.present || e.sn == 0) {
          fail(r + " still has no SN for " + e.token + " of color " + e.colorId);
        }
      }
      r.checkCovered();
      r.checkCaughtUp(scenario.versions().get(scenario.versions().size() - 1), lastIssued);
    }
    for (Map.Entry<TokenKey, Shard> e : tokenShards.entrySet()) {
      for (SimReplica r : replicasOf(e.getValue())) {
        if (!r.entries.containsKey(e.getKey())) {
          fail(r + " never got " + e.getKey());
        }
      }
    }
  }

  // ---------------------------------------------------------------- invariants

  /** Called by every hosted role for every SN it issues, in issue order. */
  void onIssued(int colorId, long firstSn, int count) {
    long last = lastIssued.getOrDefault(colorId, 0L);
    if (firstSn <= last) {
      fail(
          "color "
              + colorId
              + " issued "
              + Sn.describe(firstSn)
              + " after "
              + Sn.describe(last)
              + ": SNs must strictly increase");
    }
    if (Sn.counter(firstSn) + count - 1 > Math.min(maxCounter, Sn.MAX_COUNTER)) {
      fail("color " + colorId + " issued a range spanning epochs from " + Sn.describe(firstSn));
    }
    lastIssued.put(colorId, firstSn + count - 1);
    issued += count;
    note("color " + colorId + " issues " + Sn.describe(firstSn) + " x" + count);
  }

  /**
   * A replica learned that {@code token} has {@code sn} in {@code colorId} from an incarnation of
   * its leaf: no SN of a color belongs to two tokens, an SN was issued, a token has its append's
   * color, and one leaf incarnation gives a token one SN.
   */
  void checkAssignment(int colorId, TokenKey token, long sn, int leafNodeId, int leafIncarnation) {
    Integer appended = tokenColors.get(token);
    if (appended == null || appended != colorId) {
      fail("an SN of color " + colorId + " for " + token + ", appended in " + appended);
    }
    if (sn > lastIssued.getOrDefault(colorId, 0L)) {
      fail("SN " + Sn.describe(sn) + " of color " + colorId + " was never issued");
    }
    TokenKey owner = owners.putIfAbsent(new ColorSn(colorId, sn), token);
    if (owner != null && !owner.equals(token)) {
      fail(
          "SN "
              + Sn.describe(sn)
              + " of color "
              + colorId
              + " given to "
              + owner
              + " and "
              + token);
    }
    Long before =
        assignments.putIfAbsent(new Assignment(colorId, token, leafNodeId, leafIncarnation), sn);
    if (before != null && before != sn) {
      fail(
          token
              + " got "
              + Sn.describe(before)
              + " and "
              + Sn.describe(sn)
              + " from one incarnation of node "
              + leafNodeId);
    }
  }

  /**
   * A watermark claims every SN up to it was assigned: it is an SN some role issued, or the start
   * of an epoch ({@code epoch.0}, from a role that has issued nothing in it yet).
   */
  void checkWatermark(int colorId, long watermark) {
    if (Sn.counter(watermark) != 0 && watermark > lastIssued.getOrDefault(colorId, 0L)) {
      fail(
          "watermark "
              + Sn.describe(watermark)
              + " of color "
              + colorId
              + " is above the last SN issued, "
              + Sn.describe(lastIssued.getOrDefault(colorId, 0L)));
    }
  }

  // Without crashes nothing is lost for good: every SN issued reaches a token (a re-sent range
  // request gets its first range again, never a second one).
  private void checkNoHoles() {
    long used = owners.size();
    if (used != issued) {
      fail(issued + " SNs issued but only " + used + " given to tokens, without any crash");
    }
  }

  private void checkQuietNetwork() {
    for (SimConnection c : connections) {
      if (c.hasQueued()) {
        fail(c.describe() + " still has frames in flight");
      }
    }
  }

  /** The last events, one per line. */
  String trace() {
    return String.join("\n", trace);
  }

  String summary() {
    return String.format(
        "seed %d %s: %d steps, %d SNs issued, %d crashes, %d drops, %d tokens",
        seed, scenario.name(), step, issued, crashes, drops, tokenSeq);
  }
}
