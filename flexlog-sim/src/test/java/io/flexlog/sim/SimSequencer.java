package io.flexlog.sim;

import io.flexlog.core.error.ProtocolException;
import io.flexlog.core.model.Topology;
import io.flexlog.sequencer.SequencerConfig;
import io.flexlog.sequencer.ordering.IssueGate;
import io.flexlog.sequencer.ordering.JoinMarkStore;
import io.flexlog.sequencer.ordering.NodeEpochs;
import io.flexlog.sequencer.ordering.NodeRuntime;
import io.flexlog.sequencer.ordering.OrderingService;
import io.flexlog.sequencer.ordering.PeerLink;
import io.flexlog.sequencer.ordering.SequencerInbound;
import io.flexlog.sequencer.ordering.SequencerMetrics;
import io.flexlog.server.control.quorum.RoleLeaseKeeper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A sequencer node in the simulation: the production {@link OrderingService} behind the production
 * {@link SequencerInbound}, on a simulated event loop. What survives a crash is what survives one
 * in production: the durable epoch (an {@code EpochStore} in a real node), the join marks its roles
 * took (a {@code JoinMarkFile}) and the topology it was given; everything else starts again in a
 * new incarnation.
 */
final class SimSequencer {
  final int id;
  private final SimWorld world;
  Topology topology;
  int durableEpoch;
  Life life;

  /** The join marks saved by the node's roles, by color: they outlive its incarnations. */
  private final Map<Integer, List<JoinMarkStore.Mark>> savedMarks = new HashMap<>();

  SimSequencer(int id, Topology topology, SimWorld world) {
    this.id = id;
    this.topology = topology;
    this.world = world;
  }

  boolean up() {
    return life != null;
  }

  void start() {
    durableEpoch++;
    if (world.failover != null) {
      topology = world.failover.topologyAtStart(id, topology);
    }
    life = new Life(durableEpoch);
    life.service.start();
    world.trace.note("start " + this + " in epoch " + durableEpoch);
    if (life.keeper != null) {
      life.scheduleTick(world.random.nextInt((int) SimFailover.heartbeatMs()));
    }
  }

  void crash() {
    Life dead = life;
    dead.alive = false;
    dead.metrics.close();
    life = null;
    world.trace.note("crash " + name(dead.incarnation));
    world.network.dropAllOf(dead);
  }

  void updateTopology(Topology newer) {
    if (newer.version() > topology.version()) {
      topology = newer;
      if (life != null) {
        life.service.updateTopology(newer);
      }
    }
  }

  private String name(int incarnation) {
    return "sequencer " + id + "#" + incarnation;
  }

  @Override
  public String toString() {
    return life == null ? "sequencer " + id + " (down)" : name(life.incarnation);
  }

  /** One incarnation: its service, event loop, timers, parent wishes and connections. */
  final class Life implements SimLink.Endpoint, SimClock.Owner, NodeRuntime {
    final int incarnation;
    final OrderingService service;
    private final SequencerInbound inbound;
    private final SequencerMetrics metrics;

    /** The lease protocol of this incarnation, with failover; null without. */
    final RoleLeaseKeeper keeper;

    final SimTasks tasks = new SimTasks(() -> this.alive);
    final Set<Integer> wantedParents = new LinkedHashSet<>();
    private final Map<SimLink.End, PeerLink> links = new HashMap<>();
    private final Set<SimLink.End> parentEnds = new HashSet<>();
    boolean alive = true;

    Life(int incarnation) {
      this.incarnation = incarnation;
      this.metrics = new SequencerMetrics(world.meters, id, () -> durableEpoch);
      this.service =
          new OrderingService(
              id,
              incarnation,
              topology,
              world.dedupWindow,
              world.maxCounter,
              new Epochs(),
              metrics,
              UnpooledByteBufAllocator.DEFAULT,
              this,
              (colorId, firstSn, count) -> world.onIssued(id, colorId, firstSn, count));
      if (world.failover != null) {
        keeper = world.failover.keeper(id, incarnation);
        RoleLeaseKeeper gateKeeper = keeper;
        service.issueGate(
            new IssueGate() {
              @Override
              public boolean mayIssue(int colorId, int epoch) {
                return gateKeeper.mayIssue(colorId, epoch);
              }

              @Override
              public boolean tookEpoch(int colorId, int epoch) {
                return gateKeeper.tookEpoch(colorId, epoch);
              }

              @Override
              public void epochExhausted(int colorId, int epoch) {
                world.failover.onEpochExhausted(id, colorId, epoch);
                gateKeeper.epochExhausted(colorId, epoch);
              }
            });
      } else {
        keeper = null;
      }
      service.joinMarkStore(
          new JoinMarkStore() {
            @Override
            public List<Mark> load(int colorId) {
              return savedMarks.getOrDefault(colorId, List.of());
            }

            @Override
            public CompletableFuture<Void> save(int colorId, List<Mark> marks) {
              savedMarks.put(colorId, List.copyOf(marks));
              return CompletableFuture.completedFuture(null);
            }
          });
      this.inbound =
          new SequencerInbound(
              service, UnpooledByteBufAllocator.DEFAULT, SequencerConfig.DEFAULT_MAX_RECORD_BYTES);
    }

    /**
     * The keeper's heartbeat, on virtual time with a little jitter, while this incarnation lives.
     */
    void scheduleTick(long delayMs) {
      world.clock.schedule(
          this,
          delayMs,
          () -> {
            keeper.tick();
            world.failover.checkIssuers(name() + " ticks");
            scheduleTick(SimFailover.heartbeatMs() + world.random.nextInt(20));
          });
    }

    void accept(SimLink.End end) {
      links.put(end, inbound.onConnected(end));
    }

    void connectedToParent(int parentId, SimLink.End end) {
      parentEnds.add(end);
      links.put(end, service.onParentConnected(parentId, end));
    }

    boolean hasTasks() {
      return tasks.pending();
    }

    void runTasks() {
      tasks.runTurn(name());
    }

    @Override
    public void onFrame(SimLink.End end, ByteBuf frame) {
      PeerLink link = links.get(end);
      if (parentEnds.contains(end)) {
        try {
          service.onParentFrame(link, frame);
        } catch (ProtocolException e) {
          world.fail(name() + ": parent broke the protocol: " + e.getMessage());
        }
        return;
      }
      String problem = inbound.onFrame(link, frame);
      if (problem != null) {
        world.fail(name() + " refused a frame from " + end.peer.owner.name() + ": " + problem);
      }
    }

    @Override
    public void onClosed(SimLink.End end) {
      PeerLink link = links.remove(end);
      if (parentEnds.remove(end)) {
        service.onParentClosed(link);
      } else if (link != null) {
        inbound.onDisconnect(link);
      }
    }

    @Override
    public boolean alive() {
      return alive;
    }

    @Override
    public String name() {
      return SimSequencer.this.name(incarnation);
    }

    @Override
    public void execute(Runnable task) {
      if (alive) {
        tasks.add(task);
      }
    }

    @Override
    public void schedule(Runnable task, long delayMs) {
      if (alive) {
        world.clock.schedule(this, delayMs, task);
      }
    }

    @Override
    public long nanoTime() {
      return world.clock.nanoTime();
    }

    @Override
    public void connectParent(int parentNodeId) {
      if (alive) {
        wantedParents.add(parentNodeId);
      }
    }

    private final class Epochs implements NodeEpochs {
      @Override
      public int current() {
        return durableEpoch;
      }

      @Override
      public int advance() {
        durableEpoch++;
        world.trace.note(name() + " advances to epoch " + durableEpoch);
        return durableEpoch;
      }
    }
  }
}
