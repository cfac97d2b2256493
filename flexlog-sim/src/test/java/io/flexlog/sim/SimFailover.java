package io.flexlog.sim;

import io.flexlog.core.error.MetadataUnavailableException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.OrderResponseDescriptor;
import io.flexlog.server.control.quorum.RoleCommand;
import io.flexlog.server.control.quorum.RoleLease;
import io.flexlog.server.control.quorum.RoleLeaseKeeper;
import io.flexlog.server.control.quorum.SimQuorumBridge;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Sequencer failover in the {@link SimWorld} (docs/testing.md, "Sequencer failover"): the metadata
 * quorum as one in-memory state machine with the production rules ({@link SimQuorumBridge}), the
 * production {@link RoleLeaseKeeper} of every sequencer node ticking on virtual time, each node's
 * copy of the metadata catching up after a seeded delay, every committed topology reaching the
 * replica nodes after the sequencer nodes (as WatchTopology does), proposals and answers lost at
 * random, and nodes cut from the quorum and from some replicas.
 *
 * <p>Checked on top of the data-path invariants: no SN is issued twice or by two nodes, and at no
 * virtual instant may two nodes issue SNs of one color (asked of the keepers after every step and
 * after every heartbeat).
 */
final class SimFailover {
  static final RoleLeaseKeeper.Timing TIMING = RoleLeaseKeeper.Timing.DEFAULT;
  private static final long HEARTBEAT_MS = TIMING.heartbeat().toMillis();

  /** One committed state of the quorum: what a node's copy of the metadata catches up to. */
  private record Snapshot(long index, Map<Integer, RoleLease> leases, Topology topology) {}

  /** An interval of SNs one node issued. */
  private record Issued(long last, int nodeId) {}

  private final SimWorld world;
  private final SimQuorumBridge quorum;
  private final List<Integer> backups = new ArrayList<>();
  private final Map<Integer, Snapshot> views = new HashMap<>();
  private Snapshot latest;

  /** Sequencer nodes cut from the quorum: their proposals fail, their copy stands still. */
  final Set<Integer> cutFromQuorum = new HashSet<>();

  /** Sequencer node to the replica nodes it cannot reach (and that cannot reach it). */
  final Map<Integer, Set<Integer>> cutFromReplicas = new HashMap<>();

  private final Map<Integer, TreeMap<Long, Issued>> issued = new HashMap<>();

  /** Committed topologies that moved a role to another node. */
  long takeovers;

  /**
   * Committed topologies that gave a role a new epoch on the same node (a restart, an exhausted
   * epoch).
   */
  long retakes;

  /**
   * Committed topologies that moved the role of a color with a child color on another node: the
   * child's node must re-target its route (docs/architecture.md#sequencer-failover).
   */
  long parentMoves;

  /**
   * Of those, moves of a color that is not the root to a node that does not lead the color's
   * parent: a child node's routes to the colors above re-target to a node that only forwards them
   * further up.
   */
  long forwardingMoves;

  /** (color, epoch) pairs whose leased epoch a role found exhausted (a small maxCounter). */
  final Set<Long> exhaustedEpochs = new HashSet<>();

  /** Every keeper of every incarnation, to count the roles taken again for an exhausted epoch. */
  private final List<RoleLeaseKeeper> keepers = new ArrayList<>();

  /**
   * ORDER_RESPONSE frames with SNs of an earlier role epoch of the node a replica's topology names
   * as the leader, delivered after the replica applied the later epoch: the last answers of an
   * exhausted epoch still on the wire when the same leader took its role again (or answers the role
   * gave again from its dedup window). The replica drops those that arrive before the node's
   * WELCOME after the move and takes the answers asked again after it
   * (docs/architecture.md#fencing).
   */
  long lateSameLeaderResponses;

  /** (color, epoch) → the node a committed lease gave that epoch to. */
  private final Map<Long, Integer> leaderByEpoch = new HashMap<>();

  /** Proposals lost before they applied, and applied ones whose answer was lost. */
  long proposalsLost;

  /** The role epoch of the first takeover of {@code global}, 0 before. */
  private int firstTakeoverEpoch;

  /** Whether a client saw an append of {@code global} acknowledged in a taken-over epoch. */
  boolean ackedAfterTakeover;

  SimFailover(SimWorld world) {
    this.world = world;
    this.quorum = new SimQuorumBridge(world.topology);
    world.sequencers.keySet().forEach(backups::add);
    this.latest = new Snapshot(0, quorum.leases(), quorum.topology());
    for (int id : backups) {
      views.put(id, latest);
    }
  }

  /** The keeper of a new sequencer incarnation, on virtual time, with node epoch {@code epoch}. */
  RoleLeaseKeeper keeper(int nodeId, int epoch) {
    RoleLeaseKeeper keeper =
        new RoleLeaseKeeper(
            nodeId, epoch, backups, new NodeQuorum(nodeId), world.clock::nanoTime, TIMING);
    keepers.add(keeper);
    return keeper;
  }

  /** A role of {@code nodeId} ran out of counter in its leased epoch and asks for a new one. */
  void onEpochExhausted(int nodeId, int colorId, int epoch) {
    if (exhaustedEpochs.add(((long) colorId << 32) | epoch)) {
      world.trace.note(
          "sequencer " + nodeId + ": epoch " + epoch + " of color " + colorId + " is exhausted");
    }
  }

  /** Roles taken again by their leader because their epoch was exhausted, over all keepers. */
  long exhaustionTakes() {
    long takes = 0;
    for (RoleLeaseKeeper keeper : keepers) {
      takes += keeper.exhaustionTakes();
    }
    return takes;
  }

  /** A restarted node's copy of the metadata caught up from the quorum (unless cut from it). */
  Topology topologyAtStart(int nodeId, Topology stored) {
    if (!cutFromQuorum.contains(nodeId)) {
      views.put(nodeId, latest);
    }
    Topology view = views.get(nodeId).topology();
    return view.version() > stored.version() ? view : stored;
  }

  /** The node that holds the committed lease of the color (-1: none yet). */
  int leaderOf(int colorId) {
    RoleLease lease = latest.leases().get(colorId);
    return lease == null ? -1 : lease.leaderNodeId();
  }

  boolean cut(int sequencerId, int replicaId) {
    Set<Integer> cut = cutFromReplicas.get(sequencerId);
    return cut != null && cut.contains(replicaId);
  }

  /** Ends every cut; the copies of the metadata catch up. */
  void healCuts() {
    if (cutFromQuorum.isEmpty() && cutFromReplicas.isEmpty()) {
      return;
    }
    world.trace.note("heal cuts " + cutFromQuorum + " " + cutFromReplicas);
    cutFromQuorum.clear();
    cutFromReplicas.clear();
    publish(latest, false);
  }

  /** Cuts a sequencer node from the quorum and from {@code replicas}, dropping their links. */
  void cut(int sequencerId, Set<Integer> replicas) {
    world.trace.note("cut sequencer " + sequencerId + " from the quorum and from " + replicas);
    cutFromQuorum.add(sequencerId);
    if (!replicas.isEmpty()) {
      cutFromReplicas.computeIfAbsent(sequencerId, k -> new HashSet<>()).addAll(replicas);
      SimSequencer s = world.sequencers.get(sequencerId);
      for (SimLink link : new ArrayList<>(world.network.links())) {
        for (int r : replicas) {
          SimReplica replica = world.replicas.get(r);
          if (s.life != null
              && replica.life != null
              && link.initiator.owner == replica.life
              && link.acceptor.owner == s.life) {
            world.network.drop(link, "partition " + link.describe());
          }
        }
      }
    }
  }

  // ---------------------------------------------------------------- invariants

  /** A client saw an append acknowledged. */
  void onAcked(int colorId, long sn) {
    if (colorId == Color.GLOBAL_ID
        && firstTakeoverEpoch > 0
        && Sn.epoch(sn) >= firstTakeoverEpoch) {
      ackedAfterTakeover = true;
    }
  }

  /** A node issued {@code [firstSn, firstSn + count)}: never an SN issued before, by anyone. */
  void onIssued(int nodeId, int colorId, long firstSn, int count) {
    TreeMap<Long, Issued> byFirst = issued.computeIfAbsent(colorId, k -> new TreeMap<>());
    long last = firstSn + count - 1;
    Map.Entry<Long, Issued> below = byFirst.floorEntry(last);
    if (below != null && below.getValue().last() >= firstSn) {
      world.fail(
          Invariant.ONE_ISSUER_PER_SN,
          "color "
              + colorId
              + ": node "
              + nodeId
              + " issues "
              + Sn.describe(firstSn)
              + " x"
              + count
              + ", but node "
              + below.getValue().nodeId()
              + " issued "
              + Sn.describe(below.getKey())
              + ".."
              + Sn.describe(below.getValue().last())
              + " before");
    }
    byFirst.put(firstSn, new Issued(last, nodeId));
    checkIssuers("node " + nodeId + " issues");
  }

  /** An ORDER_RESPONSE reached {@code to}; counts the late ones of an earlier epoch, see above. */
  void onOrderResponse(SimLink.End to, ByteBuf frame) {
    if (OrderResponseDescriptor.count(frame) == 0) {
      return;
    }
    for (SimReplica r : world.replicas.values()) {
      if (r.life == null || r.life != to.owner) {
        continue;
      }
      int colorId = OrderResponseDescriptor.colorId(frame);
      Color now = r.topology.color(colorId).orElse(null);
      int epoch = Sn.epoch(OrderResponseDescriptor.sn(frame, 0));
      Integer leader = leaderByEpoch.get(((long) colorId << 32) | epoch);
      if (now != null && epoch < now.roleEpoch() && leader != null && leader == now.sequencerId()) {
        lateSameLeaderResponses++;
      }
      return;
    }
  }

  /** At most one node may issue SNs of each color now. */
  void checkIssuers(String when) {
    int highest = 0;
    for (RoleLease lease : latest.leases().values()) {
      highest = Math.max(highest, lease.epoch());
    }
    for (Color color : world.topology.colors()) {
      int issuer = -1;
      for (SimSequencer s : world.sequencers.values()) {
        if (s.life == null || s.life.keeper == null) {
          continue;
        }
        for (int epoch = 1; epoch <= highest; epoch++) {
          if (s.life.keeper.mayIssue(color.id(), epoch)) {
            if (issuer >= 0 && issuer != s.id) {
              world.fail(
                  Invariant.ONE_ISSUER_AT_A_TIME,
                  "nodes "
                      + issuer
                      + " and "
                      + s.id
                      + " may both issue SNs of color "
                      + color.id()
                      + " at "
                      + world.clock.nowMs()
                      + " ms ("
                      + when
                      + ")");
            }
            issuer = s.id;
          }
        }
      }
    }
  }

  // ---------------------------------------------------------------- the quorum

  /** Proposes an entry for {@code nodeId}: lost before or after applying, or applied. */
  private RoleCommand.Reply propose(int nodeId, String what, Supplier<RoleCommand.Reply> entry) {
    boolean cut = cutFromQuorum.contains(nodeId);
    // A cut node's proposal gets through now and then (1 in 10), its answer never.
    int roll = world.random.nextInt(cut ? 10 : 40);
    if (cut ? roll != 1 : roll == 0) {
      proposalsLost++;
      world.trace.note("quorum: " + what + " by node " + nodeId + " is lost");
      throw new MetadataUnavailableException("proposal lost");
    }
    RoleCommand.Reply reply = entry.get();
    committed(what + " by node " + nodeId + (reply.applied() ? "" : " (refused)"));
    if (cut || roll == 1) {
      proposalsLost++;
      world.trace.note("quorum: the answer to " + what + " by node " + nodeId + " is lost");
      throw new MetadataUnavailableException("answer lost");
    }
    return reply;
  }

  private void committed(String what) {
    Topology before = latest.topology();
    latest = new Snapshot(latest.index() + 1, quorum.leases(), quorum.topology());
    for (RoleLease lease : latest.leases().values()) {
      leaderByEpoch.put(((long) lease.colorId() << 32) | lease.epoch(), lease.leaderNodeId());
    }
    boolean newTopology = latest.topology().version() > before.version();
    if (newTopology) {
      boolean moved = false;
      for (Color c : latest.topology().colors()) {
        boolean colorMoved = before.color(c.id()).orElseThrow().sequencerId() != c.sequencerId();
        moved |= colorMoved;
        if (colorMoved && hasChildElsewhere(latest.topology(), c)) {
          parentMoves++;
          if (!c.isRoot()
              && latest.topology().color(c.parentId()).orElseThrow().sequencerId()
                  != c.sequencerId()) {
            forwardingMoves++;
          }
        }
      }
      if (moved) {
        takeovers++;
        if (firstTakeoverEpoch == 0) {
          firstTakeoverEpoch = latest.topology().color(Color.GLOBAL_ID).orElseThrow().roleEpoch();
        }
      } else {
        retakes++;
      }
      StringBuilder roles = new StringBuilder();
      for (Color c : latest.topology().colors()) {
        roles.append(' ').append(c.name()).append('@').append(c.sequencerId());
        roles.append(" epoch ").append(c.roleEpoch());
      }
      world.trace.note(
          "quorum: " + what + " commits topology " + latest.topology().version() + roles);
    }
    publish(latest, newTopology);
  }

  private static boolean hasChildElsewhere(Topology topology, Color parent) {
    for (Color c : topology.colors()) {
      if (!c.isRoot() && c.parentId() == parent.id() && c.sequencerId() != parent.sequencerId()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Each sequencer node's copy catches up to {@code snapshot} after a seeded delay (unless it is
   * cut from the quorum); a new topology then reaches every replica node a little later than every
   * sequencer node that got it, as WatchTopology hands it out.
   */
  private void publish(Snapshot snapshot, boolean toReplicas) {
    long lastMs = 0;
    for (int id : backups) {
      if (cutFromQuorum.contains(id)) {
        continue;
      }
      long delayMs = delay(60);
      lastMs = Math.max(lastMs, delayMs);
      world.clock.schedule(() -> true, delayMs, () -> catchUp(id, snapshot));
    }
    if (!toReplicas) {
      return;
    }
    for (SimReplica r : world.replicas.values()) {
      world.clock.schedule(
          () -> true,
          lastMs + delay(200),
          () -> {
            world.trace.note(r + " learns topology " + snapshot.topology().version());
            r.updateTopology(snapshot.topology());
          });
    }
  }

  private long delay(int usualMs) {
    return world.random.nextInt(10) == 0
        ? world.random.nextInt(5 * usualMs)
        : world.random.nextInt(usualMs);
  }

  private void catchUp(int nodeId, Snapshot snapshot) {
    Snapshot view = views.get(nodeId);
    if (cutFromQuorum.contains(nodeId) || view.index() >= snapshot.index()) {
      return;
    }
    views.put(nodeId, snapshot);
    if (snapshot.topology().version() > view.topology().version()) {
      world.trace.note("sequencer " + nodeId + " learns topology " + snapshot.topology().version());
    }
    world.sequencers.get(nodeId).updateTopology(snapshot.topology());
  }

  /** The quorum as one node sees it: proposals through the simulation, its own copy to read. */
  private final class NodeQuorum implements RoleLeaseKeeper.Quorum {
    private final int nodeId;

    NodeQuorum(int nodeId) {
      this.nodeId = nodeId;
    }

    @Override
    public RoleCommand.Reply renew(int colorId, int node, int epoch) {
      return propose(
          node,
          "renew color " + colorId + " epoch " + epoch,
          () -> quorum.renew(colorId, node, epoch));
    }

    @Override
    public RoleCommand.Reply take(int colorId, int node, RoleLease seen, int minEpoch) {
      return propose(
          node,
          "take color " + colorId + " (saw " + seen + ", min epoch " + minEpoch + ")",
          () -> quorum.take(colorId, node, seen, minEpoch));
    }

    @Override
    public Map<Integer, RoleLease> leases() {
      return views.get(nodeId).leases();
    }

    @Override
    public Topology topology() {
      return views.get(nodeId).topology();
    }

    // The simulated quorum has no leader of its own: it never reports followers, so no node hands
    // its leadership on (the hand-off is tested with the real quorum in MetadataQuorumTest).
    @Override
    public List<Integer> responsiveFollowers() {
      return List.of();
    }

    @Override
    public void handLeadershipTo(int node) {
      throw new AssertionError("the simulated quorum has no leader to hand on");
    }
  }

  static long heartbeatMs() {
    return HEARTBEAT_MS;
  }
}
