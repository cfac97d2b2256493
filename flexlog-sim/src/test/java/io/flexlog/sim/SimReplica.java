package io.flexlog.sim;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.HelloDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.OrderRequestDescriptor;
import io.flexlog.replica.atomic.AtomicAppends;
import io.flexlog.replica.atomic.AtomicConfig;
import io.flexlog.replica.atomic.ForwardTransport;
import io.flexlog.replica.node.ReplicaAdapter;
import io.flexlog.replica.replication.OrderRequestBatch;
import io.flexlog.replica.replication.ReplicaLimits;
import io.flexlog.replica.replication.ReplicaRuntime;
import io.flexlog.replica.replication.ReplicationEngine;
import io.flexlog.replica.replication.RoleMoves;
import io.flexlog.replica.replication.SequencerGateway;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.replica.storage.TrimmedTokenFile;
import io.netty.buffer.ByteBuf;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A replica node in the simulation: the production {@link ReplicationEngine} behind the production
 * {@link ReplicaAdapter}, with the production atomic-append component ({@link AtomicAppends}), on a
 * simulated event loop and virtual time, over a real log (the mapped engine in {@code process}
 * durability, on a file that outlives the process). A crash loses the process's memory, timers and
 * connections; the log file stays, and the next incarnation recovers from it as a restarted node
 * does.
 *
 * <p>The links to sequencer nodes speak as {@code SequencerLink} does: HELLO with the shards that
 * node orders for, then every frame in arrival order to the inbound adapter.
 */
final class SimReplica {
  static final long LOG_BYTES = 4L << 20;
  static final long CHUNK_BYTES = 1L << 20;

  final int id;
  private final SimWorld world;
  private final Path dir;

  /**
   * The newest topology this node was given; it outlives a crash, as the node's stored {@code
   * cluster-metadata} does.
   */
  Topology topology;

  Life life;
  private int incarnations;

  SimReplica(int id, Path dir, SimWorld world) {
    this.id = id;
    this.dir = dir;
    this.world = world;
    this.topology = world.topology;
  }

  /** A newer topology reached this node (failover moved a role): see {@link Life#apply}. */
  void updateTopology(Topology newer) {
    if (newer.version() > topology.version()) {
      topology = newer;
      if (life != null) {
        life.apply(newer);
      }
    }
  }

  boolean up() {
    return life != null;
  }

  void start() {
    life = new Life(++incarnations);
    world.trace.note("start " + life.name());
    life.engine.recover();
    life.engine.startHeartbeats();
  }

  void crash() {
    Life dead = life;
    dead.alive = false;
    life = null;
    world.trace.note("crash " + dead.name());
    world.network.dropAllOf(dead);
    dead.storage.close();
    dead.trimmedTokens.close();
  }

  /** The sequencer nodes this replica must reach: the node of each hosted shard's color. */
  Map<Integer, int[]> shardsBySequencer(Topology topology) {
    Map<Integer, List<Integer>> lists = new TreeMap<>();
    for (Shard shard : topology.shardsOnReplica(id)) {
      int sequencer = topology.color(shard.colorId()).orElseThrow().sequencerId();
      lists.computeIfAbsent(sequencer, k -> new ArrayList<>()).add(shard.id());
    }
    Map<Integer, int[]> out = new LinkedHashMap<>();
    lists.forEach((k, v) -> out.put(k, v.stream().mapToInt(Integer::intValue).toArray()));
    return out;
  }

  @Override
  public String toString() {
    return life == null ? "replica " + id + " (down)" : life.name();
  }

  /** One incarnation of the process. */
  final class Life implements SimLink.Endpoint, SimClock.Owner, ReplicaRuntime {
    final int incarnation;
    final LogStorage storage;
    private final TrimmedTokenFile trimmedTokens;
    final ReplicationEngine engine;
    private final AtomicAppends atomic;
    private final ReplicaAdapter inbound;
    final SimTasks tasks = new SimTasks(() -> this.alive);

    /** Our end of the link to each sequencer node, while connected. */
    final Map<Integer, SimLink.End> sequencers = new LinkedHashMap<>();

    /** The shards our last HELLO on each sequencer link named. */
    private final Map<Integer, int[]> helloShards = new LinkedHashMap<>();

    /** Our end of the link to each peer replica node we asked something, while connected. */
    final Map<Integer, SimLink.End> peers = new LinkedHashMap<>();

    boolean alive = true;

    Life(int incarnation) {
      this.incarnation = incarnation;
      this.storage =
          StorageEngines.open(
              StorageEngines.MAPPED, dir, LOG_BYTES, CHUNK_BYTES, DurabilityMode.PROCESS);
      this.trimmedTokens = new TrimmedTokenFile(dir, id, DurabilityMode.PROCESS);
      this.engine =
          new ReplicationEngine(
              id,
              topology,
              storage,
              ReplicaLimits.defaults(),
              new Sequencers(),
              this,
              world.meters);
      Peers peers = new Peers();
      this.atomic =
          new AtomicAppends(
              id,
              engine,
              storage,
              ReplicaLimits.defaults(),
              this,
              peers,
              AtomicConfig.defaults(),
              world.meters);
      engine.attachPeers(peers);
      engine.attachStaging(atomic);
      engine.attachTrimmedTokens(trimmedTokens);
      this.inbound = new ReplicaAdapter(engine, atomic::onPeerFrame);
    }

    /** Our connection to sequencer node {@code sequencerId} is up: say HELLO. */
    void connectedToSequencer(int sequencerId, int[] shardIds, SimLink.End end) {
      sequencers.put(sequencerId, end);
      helloShards.put(sequencerId, shardIds);
      end.write(HelloDescriptor.encode(end.alloc(), id, shardIds));
      end.flush();
    }

    /**
     * Applies a newer topology as {@code ReplicaNode} does: the engine takes it, and each open
     * sequencer link speaks for the shards whose role that node now holds, saying HELLO again when
     * it gained some or became the new leader of a moved role ({@link RoleMoves}, also a role it
     * led before); a link whose node lost them keeps its connection but names no shard (new links
     * to the new role holder are made by the simulation's connection events).
     */
    void apply(Topology newer) {
      Topology before = engine.topology();
      engine.updateTopology(newer);
      Set<Integer> newLeaders =
          RoleMoves.newLeaders(before, engine.topology(), engine.hostedShardIds());
      Map<Integer, int[]> wanted = shardsBySequencer(newer);
      for (Map.Entry<Integer, SimLink.End> e : sequencers.entrySet()) {
        int[] shards = wanted.getOrDefault(e.getKey(), new int[0]);
        if (shards.length == 0) {
          helloShards.put(e.getKey(), shards);
        } else if (newLeaders.contains(e.getKey())
            || !java.util.Arrays.equals(helloShards.get(e.getKey()), shards)) {
          helloShards.put(e.getKey(), shards);
          e.getValue().write(HelloDescriptor.encode(e.getValue().alloc(), id, shards));
          e.getValue().flush();
        }
      }
    }

    boolean hasTasks() {
      return tasks.pending();
    }

    void runTasks() {
      tasks.runTurn(name());
    }

    @Override
    public void onFrame(SimLink.End end, ByteBuf frame) {
      if (end.link().initiator != end) {
        inbound.onClientFrame(end, frame);
        return;
      }
      Integer sequencerId = keyOf(sequencers, end);
      if (sequencerId != null) {
        if (!inbound.onSequencerFrame(sequencerId, frame)) {
          onSequencerError(sequencerId, frame);
        }
      } else {
        inbound.onPeerFrame(frame);
      }
    }

    private void onSequencerError(int sequencerId, ByteBuf frame) {
      if (FrameDescriptor.type(frame) != MessageType.ERROR) {
        world.fail(name() + " got an unexpected " + SimLink.describe(frame));
      }
      ErrorCode code = ErrorDescriptor.code(frame);
      if (world.failover != null
          && (code == ErrorCode.UNKNOWN_COLOR || code == ErrorCode.UNKNOWN_SHARD)) {
        // A sequencer node that has not applied the topology naming it the role holder yet: say
        // HELLO again later, as SequencerLink does, which re-sends the unassigned order requests.
        world.trace.note(name() + " refused by sequencer " + sequencerId + ": " + code);
        rehelloLater(sequencerId);
        return;
      }
      world.fail(
          "sequencer "
              + sequencerId
              + " refused "
              + name()
              + ": "
              + code
              + " "
              + ErrorDescriptor.message(frame));
    }

    private void rehelloLater(int sequencerId) {
      SimLink.End end = sequencers.get(sequencerId);
      schedule(
          () -> {
            if (sequencers.get(sequencerId) == end && end.isActive()) {
              end.write(HelloDescriptor.encode(end.alloc(), id, helloShards.get(sequencerId)));
              end.flush();
            }
          },
          50_000_000L);
    }

    @Override
    public void onClosed(SimLink.End end) {
      if (end.link().initiator != end) {
        inbound.onClientClosed(end);
        return;
      }
      Integer sequencerId = keyOf(sequencers, end);
      if (sequencerId != null) {
        sequencers.remove(sequencerId);
        helloShards.remove(sequencerId);
        inbound.onSequencerLinkLost(sequencerId);
      } else {
        Integer peer = keyOf(peers, end);
        if (peer != null) {
          peers.remove(peer);
        }
      }
    }

    @Override
    public boolean alive() {
      return alive;
    }

    @Override
    public String name() {
      return "replica " + id + "#" + incarnation;
    }

    @Override
    public void execute(Runnable task) {
      if (alive) {
        tasks.add(task);
      }
    }

    @Override
    public Timer schedule(Runnable task, long delayNanos) {
      boolean[] cancelled = {false};
      if (alive) {
        world.clock.schedule(
            () -> alive && !cancelled[0], Math.max(1, (delayNanos + 999_999) / 1_000_000), task);
      }
      return () -> cancelled[0] = true;
    }

    @Override
    public long nanoTime() {
      return world.clock.nanoTime();
    }

    /** ORDER_REQUESTs go on the link to the sequencer node of the batch's shard. */
    private final class Sequencers implements SequencerGateway {
      @Override
      public void send(OrderRequestBatch batch, int replicaNodeId) {
        SimLink.End end = sequencers.get(engine.sequencerOf(batch.shardId));
        if (end == null) {
          return; // link down: the engine re-sends every unassigned token on WELCOME
        }
        ByteBuf buf =
            OrderRequestDescriptor.encodeHeader(
                end.alloc(),
                batch.roleEpoch(),
                batch.colorId,
                batch.shardId,
                replicaNodeId,
                batch.count());
        for (int i = 0; i < batch.count(); i++) {
          OrderRequestDescriptor.writeToken(buf, batch.session(i), batch.sequence(i));
        }
        end.write(buf);
      }

      @Override
      public void flush() {
        sequencers.values().forEach(SimLink.End::flush);
      }
    }

    /** Frames to other replica nodes, on a connection opened on first use (if the peer is up). */
    private final class Peers implements ForwardTransport {
      @Override
      public void send(int nodeId, ByteBuf frame) {
        SimLink.End end = peers.get(nodeId);
        if (end == null) {
          end = world.connectPeer(Life.this, nodeId);
          if (end == null) {
            frame.release(); // connection refused: the peer is down
            return;
          }
          peers.put(nodeId, end);
        }
        end.write(frame);
      }

      @Override
      public void flush() {
        peers.values().forEach(SimLink.End::flush);
      }
    }
  }

  private static Integer keyOf(Map<Integer, SimLink.End> map, SimLink.End end) {
    for (Map.Entry<Integer, SimLink.End> e : map.entrySet()) {
      if (e.getValue() == end) {
        return e.getKey();
      }
    }
    return null;
  }
}
