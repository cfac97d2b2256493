package io.flexlog.replica.atomic;

/**
 * Time and timers as the atomic state machines see them. A running node implements it over its
 * event loop and {@code System.nanoTime()} ({@link EventLoopScheduler}); unit tests and the
 * deterministic simulation over virtual time, so that abandon, retry and retention deadlines fire
 * exactly when the test says.
 *
 * <p>Threading: called on the thread that owns the state machines, and every task runs on it.
 */
public interface Scheduler {
  /** Monotonic time in nanoseconds; only differences between two values mean anything. */
  long nanoTime();

  /** Runs {@code task} on the owning thread once, {@code delayNs} from now. */
  Timer schedule(Runnable task, long delayNs);

  /** A scheduled task. */
  interface Timer {
    /** Keeps the task from running if it has not run yet; does nothing otherwise. */
    void cancel();
  }
}
