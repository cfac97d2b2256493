package io.flexlog.sequencer;

import io.flexlog.core.model.Topology;
import io.flexlog.sequencer.ordering.NodeEpochs;
import io.flexlog.sequencer.ordering.NodeRuntime;
import io.flexlog.sequencer.ordering.OrderingService;
import io.flexlog.sequencer.ordering.SequencerMetrics;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayDeque;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * A sequencer node in the {@link TreeSimulation}: the production {@link OrderingService} with a
 * simulated runtime. What survives a crash is what survives one in production: the durable epoch
 * (an {@link EpochStore} in a real node) and the topology it was given; everything else is a new
 * service in a new incarnation.
 */
final class SimNode {
  final int id;
  private final TreeSimulation world;

  /** The latest topology given to the node; a restarted node starts from it. */
  Topology topology;

  /** The node's durable epoch, bumped by each start and each counter overflow. */
  int durableEpoch;

  boolean up;
  int incarnation;
  OrderingService service;
  Runtime runtime;
  private SequencerMetrics metrics;

  SimNode(int id, Topology topology, TreeSimulation world) {
    this.id = id;
    this.topology = topology;
    this.world = world;
  }

  void start() {
    durableEpoch++;
    incarnation = durableEpoch;
    up = true;
    runtime = new Runtime();
    metrics = new SequencerMetrics(world.meters, id, () -> durableEpoch);
    service =
        new OrderingService(
            id,
            incarnation,
            topology,
            world.dedupWindow,
            world.maxCounter,
            new Epochs(),
            metrics,
            UnpooledByteBufAllocator.DEFAULT,
            runtime,
            world::onIssued);
    service.start();
  }

  /** The process dies: its tasks, timers and wishes die with it. */
  void crash() {
    up = false;
    runtime.dead = true;
    metrics.close();
    service = null;
  }

  void updateTopology(Topology newer) {
    if (newer.version() > topology.version()) {
      topology = newer;
      if (up) {
        service.updateTopology(newer);
      }
    }
  }

  boolean hasTasks() {
    return up && !runtime.tasks.isEmpty();
  }

  /** Runs the queued tasks, as the event loop does after the reads of a turn. */
  void runTasks() {
    int guard = 0;
    while (up && !runtime.tasks.isEmpty()) {
      runtime.tasks.poll().run();
      if (++guard > 10_000) {
        throw new AssertionError("node " + id + " keeps scheduling tasks");
      }
    }
  }

  private final class Epochs implements NodeEpochs {
    @Override
    public int current() {
      return durableEpoch;
    }

    @Override
    public int advance() {
      return ++durableEpoch;
    }
  }

  /** One incarnation's event loop: a task queue, virtual-time timers and parent wishes. */
  final class Runtime implements NodeRuntime {
    final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    final Set<Integer> wantedParents = new LinkedHashSet<>();
    boolean dead;

    @Override
    public void execute(Runnable task) {
      if (!dead) {
        tasks.add(task);
      }
    }

    @Override
    public void schedule(Runnable task, long delayMs) {
      if (!dead) {
        world.addTimer(delayMs, this, task);
      }
    }

    @Override
    public long nanoTime() {
      return world.nowMs() * 1_000_000L;
    }

    @Override
    public void connectParent(int parentNodeId) {
      if (!dead) {
        wantedParents.add(parentNodeId);
      }
    }
  }

  @Override
  public String toString() {
    return "node " + id + (up ? "#" + incarnation : " (down)");
  }
}
