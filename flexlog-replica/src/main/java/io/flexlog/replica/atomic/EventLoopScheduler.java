package io.flexlog.replica.atomic;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The {@link Scheduler} of a running replica node: timers on its event loop, time from {@code
 * System.nanoTime()}. Threading: call it on {@code executor}'s thread.
 */
public final class EventLoopScheduler implements Scheduler {
  private final EventExecutor executor;
  private final LongSupplier clock;

  /** Timers on {@code executor}, time from {@code System.nanoTime()}. */
  public EventLoopScheduler(EventExecutor executor) {
    this(executor, System::nanoTime);
  }

  /**
   * Timers on {@code executor}, time from {@code clock}: for tests that freeze the executor's time
   * and move both together.
   */
  public EventLoopScheduler(EventExecutor executor, LongSupplier clock) {
    this.executor = executor;
    this.clock = clock;
  }

  @Override
  public long nanoTime() {
    return clock.getAsLong();
  }

  @Override
  public Timer schedule(Runnable task, long delayNs) {
    ScheduledFuture<?> future = executor.schedule(task, delayNs, TimeUnit.NANOSECONDS);
    return () -> future.cancel(false);
  }
}
