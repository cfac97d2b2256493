package io.flexlog.client.internals;

import java.util.concurrent.Executor;

/**
 * The client's event loop as the roles see it: run a task on it, run one later, ask whether the
 * caller is on it. {@link ClientCore} implements it over its Netty event loop; role tests run tasks
 * by hand with a manual clock.
 */
interface ClientLoop extends Executor {
  /** Runs {@code task} on the loop after {@code delayNs} nanoseconds of the client's clock. */
  void schedule(Runnable task, long delayNs);

  /** True if the caller runs on the loop (and so must not block on it). */
  boolean inLoop();
}
