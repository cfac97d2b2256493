package io.flexlog.sim;

import java.util.ArrayDeque;
import java.util.function.BooleanSupplier;

/**
 * The task queue of one simulated process incarnation: what its event loop runs at the end of a
 * turn. Tasks queued by a dead incarnation are dropped, and the simulation decides when a turn
 * runs.
 */
final class SimTasks {
  private static final int MAX_TASKS_PER_TURN = 10_000;

  private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
  private final BooleanSupplier alive;

  SimTasks(BooleanSupplier alive) {
    this.alive = alive;
  }

  void add(Runnable task) {
    if (alive.getAsBoolean()) {
      tasks.add(task);
    }
  }

  boolean pending() {
    return alive.getAsBoolean() && !tasks.isEmpty();
  }

  /** Runs the queued tasks, and those they queue, as the event loop does after a turn's reads. */
  void runTurn(String owner) {
    int ran = 0;
    while (alive.getAsBoolean() && !tasks.isEmpty()) {
      tasks.poll().run();
      if (++ran > MAX_TASKS_PER_TURN) {
        throw new AssertionError(owner + " keeps scheduling tasks");
      }
    }
  }
}
