package io.flexlog.client.internals;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The client's loop in a test: tasks wait until {@link #run()}, delayed tasks until the {@link
 * ManualClock} reaches their time. The test's thread counts as the loop thread.
 */
final class ManualLoop implements ClientLoop {
  private record Timed(long dueNs, long order, Runnable task) {}

  private final ManualClock clock;
  private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
  private final List<Timed> timed = new ArrayList<>();
  private long order;

  ManualLoop(ManualClock clock) {
    this.clock = clock;
  }

  @Override
  public void execute(Runnable task) {
    tasks.add(task);
  }

  @Override
  public void schedule(Runnable task, long delayNs) {
    timed.add(new Timed(clock.nanoTime() + delayNs, order++, task));
  }

  @Override
  public boolean inLoop() {
    return true;
  }

  /** Runs queued tasks and delayed tasks that are due, until none is left. */
  void run() {
    while (true) {
      Runnable task = tasks.poll();
      if (task == null) {
        task = nextDue();
      }
      if (task == null) {
        return;
      }
      task.run();
    }
  }

  private Runnable nextDue() {
    Timed due =
        timed.stream()
            .filter(t -> clock.nanoTime() - t.dueNs() >= 0)
            .min(Comparator.comparingLong(Timed::dueNs).thenComparingLong(Timed::order))
            .orElse(null);
    if (due == null) {
      return null;
    }
    timed.remove(due);
    return due.task();
  }

  /** Delayed tasks not run yet. */
  int delayed() {
    return timed.size();
  }
}
