package io.flexlog.sequencer.ordering;

/**
 * What the ordering service needs from its surroundings besides connections: its event loop (to end
 * a turn after the reads of the turn, and for timers), the time, and connections to parent nodes. A
 * running node implements it over its Netty event loop; the deterministic simulation over a seeded
 * scheduler with virtual time.
 *
 * <p>Threading: every callback the runtime makes into the service, and every task it runs, happens
 * on the one thread that owns the service.
 */
public interface NodeRuntime {
  /** Runs {@code task} on the service's thread after the work already queued (end of turn). */
  void execute(Runnable task);

  /** Runs {@code task} on the service's thread after {@code delayMs}. */
  void schedule(Runnable task, long delayMs);

  /** Monotonic time for latency metrics. */
  long nanoTime();

  /**
   * Keeps a connection to sequencer node {@code parentNodeId} open from now on, reconnecting with
   * backoff: each time it is up the runtime calls {@link OrderingService#onParentConnected}, and
   * {@link OrderingService#onParentClosed} when it breaks. Idempotent.
   */
  void connectParent(int parentNodeId);
}
