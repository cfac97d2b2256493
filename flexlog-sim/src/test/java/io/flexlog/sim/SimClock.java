package io.flexlog.sim;

import java.util.ArrayDeque;
import java.util.PriorityQueue;

/**
 * Virtual time and the timers of every simulated process. Time moves only when the simulation fires
 * timers, so a run is a pure function of its seed. A timer belongs to one incarnation of one
 * process: when that incarnation dies, its timers never fire.
 */
final class SimClock {
  /** Who a timer belongs to: its incarnation is alive while {@link #alive()} says so. */
  interface Owner {
    boolean alive();
  }

  private record Timer(long dueMs, long seq, Owner owner, Runnable task) {}

  private final PriorityQueue<Timer> timers =
      new PriorityQueue<>(
          (a, b) ->
              a.dueMs != b.dueMs ? Long.compare(a.dueMs, b.dueMs) : Long.compare(a.seq, b.seq));
  private long nowMs;
  private long seq;

  long nowMs() {
    return nowMs;
  }

  long nanoTime() {
    return nowMs * 1_000_000L;
  }

  void schedule(Owner owner, long delayMs, Runnable task) {
    timers.add(new Timer(nowMs + Math.max(0, delayMs), seq++, owner, task));
  }

  boolean hasTimers() {
    return !timers.isEmpty();
  }

  /**
   * Moves time to the next due timer and runs every timer due by then, in order.
   *
   * @return the new time, or -1 if no timer was pending
   */
  long fireNext() {
    Timer next = timers.peek();
    if (next == null) {
      return -1;
    }
    nowMs = Math.max(nowMs, next.dueMs);
    ArrayDeque<Timer> due = new ArrayDeque<>();
    while (!timers.isEmpty() && timers.peek().dueMs <= nowMs) {
      due.add(timers.poll());
    }
    for (Timer t : due) {
      if (t.owner.alive()) {
        t.task.run();
      }
    }
    return nowMs;
  }

  /** Lets {@code ms} of virtual time pass, firing the timers due meanwhile. */
  void advance(long ms) {
    long until = nowMs + ms;
    while (!timers.isEmpty() && timers.peek().dueMs <= until) {
      fireNext();
    }
    nowMs = Math.max(nowMs, until);
  }
}
