package io.flexlog.replica.replication;

import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.PriorityQueue;

/**
 * A {@link ReplicaRuntime} on virtual time for tests: tasks run when the test says so, timers when
 * the test moves the clock past their deadline, in deadline order.
 */
final class VirtualRuntime implements ReplicaRuntime {
  private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
  private final PriorityQueue<Scheduled> timers =
      new PriorityQueue<>(
          Comparator.comparingLong((Scheduled s) -> s.deadline).thenComparingLong(s -> s.order));
  private long now = 1_000_000_000L;
  private long order;

  @Override
  public void execute(Runnable task) {
    tasks.add(task);
  }

  @Override
  public Timer schedule(Runnable task, long delayNanos) {
    Scheduled scheduled = new Scheduled(now + delayNanos, order++, task);
    timers.add(scheduled);
    return () -> timers.remove(scheduled);
  }

  @Override
  public long nanoTime() {
    return now;
  }

  /** Runs the queued tasks, and those they queue, until none is left. */
  void runTasks() {
    for (Runnable task = tasks.poll(); task != null; task = tasks.poll()) {
      task.run();
    }
  }

  /** Moves the clock by {@code nanos}, running each timer due meanwhile and the tasks it queues. */
  void advance(long nanos) {
    long target = now + nanos;
    while (!timers.isEmpty() && timers.peek().deadline <= target) {
      Scheduled next = timers.poll();
      now = next.deadline;
      next.task.run();
      runTasks();
    }
    now = target;
    runTasks();
  }

  int pendingTimers() {
    return timers.size();
  }

  private record Scheduled(long deadline, long order, Runnable task) {}
}
