package io.flexlog.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * The faults of the {@link SimWorld}'s classic modes (docs/testing.md): lost connections, crashes
 * one at a time or several at once, and a sequencer crashing with a replica of its shard; the
 * failover modes have {@link SimFailoverFaults}.
 */
final class SimFaults {
  private final SimWorld world;

  SimFaults(SimWorld world) {
    this.world = world;
  }

  void fault() {
    int roll = world.random.nextInt(10);
    List<SimLink> links = world.network.links();
    if (roll < 6 && !links.isEmpty()) {
      SimLink link = links.get(world.random.nextInt(links.size()));
      world.network.drop(link, "drop " + link.describe());
    } else if (roll < 8 && world.faults == SimWorld.Faults.CRASHES) {
      crashSomething();
    } else if (roll < 8 && world.faults == SimWorld.Faults.COMBINED) {
      crashSequencerWithReplica();
    } else if (roll < 8 && world.faults == SimWorld.Faults.CRASH_ONE && allUp()) {
      crashSomething();
    } else {
      restartSomething();
    }
  }

  private boolean allUp() {
    return world.sequencers.values().stream().allMatch(SimSequencer::up)
        && world.replicas.values().stream().allMatch(SimReplica::up);
  }

  private void crashSomething() {
    List<Runnable> options = new ArrayList<>();
    for (SimSequencer s : world.sequencers.values()) {
      if (s.up()) {
        options.add(s::crash);
      }
    }
    for (SimReplica r : world.replicas.values()) {
      if (r.up()) {
        options.add(r::crash);
      }
    }
    if (!options.isEmpty()) {
      world.crashes++;
      options.get(world.random.nextInt(options.size())).run();
    }
  }

  /** Crashes an up sequencer and an up replica of a shard it orders, in one step. */
  private void crashSequencerWithReplica() {
    List<Runnable> options = new ArrayList<>();
    for (SimSequencer s : world.sequencers.values()) {
      if (!s.up()) {
        continue;
      }
      for (SimReplica r : world.replicas.values()) {
        if (r.up() && r.shardsBySequencer(world.topology).containsKey(s.id)) {
          options.add(
              () -> {
                world.trace.note("combined crash: sequencer " + s.id + " with replica " + r.id);
                s.crash();
                r.crash();
              });
        }
      }
    }
    if (!options.isEmpty()) {
      world.crashes += 2;
      world.combinedCrashes++;
      options.get(world.random.nextInt(options.size())).run();
    }
  }

  private void restartSomething() {
    List<Runnable> options = new ArrayList<>();
    for (SimSequencer s : world.sequencers.values()) {
      if (!s.up()) {
        options.add(s::start);
      }
    }
    for (SimReplica r : world.replicas.values()) {
      if (!r.up()) {
        options.add(r::start);
      }
    }
    if (!options.isEmpty()) {
      options.get(world.random.nextInt(options.size())).run();
    }
  }
}
