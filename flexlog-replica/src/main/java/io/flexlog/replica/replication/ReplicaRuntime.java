package io.flexlog.replica.replication;

/**
 * What the replica's protocol state machines need from their surroundings besides connections:
 * their event loop (to end a turn after the frames of the turn, and for timers) and the time. A
 * running node implements it over its Netty event loop ({@link EventExecutorRuntime}); tests and
 * the deterministic simulation over a scheduler with virtual time.
 *
 * <p>Threading: every task the runtime runs, runs on the one thread that owns the state machines,
 * the thread that calls the runtime.
 */
public interface ReplicaRuntime {
  /** Runs {@code task} on the owning thread after the work already queued (end of turn). */
  void execute(Runnable task);

  /**
   * Runs {@code task} on the owning thread once {@code delayNanos} have passed.
   *
   * @return a handle that cancels the task if it has not run yet
   */
  Timer schedule(Runnable task, long delayNanos);

  /** Monotonic time in nanoseconds, on the same clock as {@link #schedule} delays. */
  long nanoTime();

  /** A scheduled task that may still be cancelled. */
  @FunctionalInterface
  interface Timer {
    /** Keeps the task from running; no effect once it ran or was cancelled. */
    void cancel();
  }
}
