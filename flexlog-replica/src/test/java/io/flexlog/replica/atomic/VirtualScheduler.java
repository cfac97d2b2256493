package io.flexlog.replica.atomic;

import io.flexlog.replica.replication.ReplicaRuntime;
import java.time.Duration;
import java.util.PriorityQueue;

/**
 * A {@link ReplicaRuntime} on virtual time: nothing happens until the test advances the clock, and
 * then every task due runs at its own deadline, in deadline order (ties in scheduling order).
 */
final class VirtualScheduler implements ReplicaRuntime {
  private final PriorityQueue<Task> tasks =
      new PriorityQueue<>(
          (a, b) ->
              a.deadlineNs != b.deadlineNs
                  ? Long.compare(a.deadlineNs, b.deadlineNs)
                  : Long.compare(a.order, b.order));
  private long nowNs;
  private long scheduled;

  /** Starts at an arbitrary, non-zero time: only differences mean anything. */
  VirtualScheduler() {
    this.nowNs = 1_000_000_000_000L;
  }

  @Override
  public long nanoTime() {
    return nowNs;
  }

  @Override
  public void execute(Runnable task) {
    schedule(task, 0);
  }

  @Override
  public Timer schedule(Runnable task, long delayNs) {
    Task entry = new Task(nowNs + delayNs, scheduled++, task);
    tasks.add(entry);
    return () -> entry.cancelled = true;
  }

  /** Moves time forward by {@code time}, running every task that falls due on the way. */
  void advance(Duration time) {
    long target = nowNs + time.toNanos();
    while (!tasks.isEmpty() && tasks.peek().deadlineNs <= target) {
      Task task = tasks.poll();
      nowNs = task.deadlineNs;
      if (!task.cancelled) {
        task.action.run();
      }
    }
    nowNs = target;
  }

  /** Tasks scheduled and neither run nor cancelled. */
  int pendingCount() {
    int pending = 0;
    for (Task task : tasks) {
      pending += task.cancelled ? 0 : 1;
    }
    return pending;
  }

  private static final class Task {
    final long deadlineNs;
    final long order;
    final Runnable action;
    boolean cancelled;

    Task(long deadlineNs, long order, Runnable action) {
      this.deadlineNs = deadlineNs;
      this.order = order;
      this.action = action;
    }
  }
}
