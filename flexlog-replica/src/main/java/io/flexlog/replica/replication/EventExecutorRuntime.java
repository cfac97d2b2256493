package io.flexlog.replica.replication;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The {@link ReplicaRuntime} of a running replica node: its Netty event loop, and the system's
 * monotonic clock. Also used by tests that drive the engine on an embedded event loop.
 */
public final class EventExecutorRuntime implements ReplicaRuntime {
  private final EventExecutor executor;
  private final LongSupplier clock;

  public EventExecutorRuntime(EventExecutor executor) {
    this(executor, System::nanoTime);
  }

  /**
   * Timers on {@code executor}, time from {@code clock}: for tests that freeze the executor's time
   * and move both together.
   */
  public EventExecutorRuntime(EventExecutor executor, LongSupplier clock) {
    this.executor = executor;
    this.clock = clock;
  }

  @Override
  public void execute(Runnable task) {
    executor.execute(task);
  }

  @Override
  public Timer schedule(Runnable task, long delayNanos) {
    ScheduledFuture<?> future = executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    return () -> future.cancel(false);
  }

  @Override
  public long nanoTime() {
    return clock.getAsLong();
  }
}
