package io.flexlog.bench.load;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An appender whose appends complete on a scheduler's threads after a fixed delay, like a network
 * client's event loops. Counts what it sees so tests can check the load's shape.
 */
final class ScheduledAppender implements AsyncAppender {
  private final ScheduledExecutorService scheduler;
  private final long delayUs;
  private final CountDownLatch gate;
  private final AtomicInteger globalOutstanding;
  private final AtomicInteger globalMaxOutstanding;
  private final AtomicInteger outstanding = new AtomicInteger();
  private final AtomicInteger maxOutstanding = new AtomicInteger();
  private final AtomicLong issued = new AtomicLong();

  /**
   * @param gate appends complete only once it is open
   * @param globalOutstanding shared by all appenders of a test
   */
  ScheduledAppender(
      ScheduledExecutorService scheduler,
      long delayUs,
      CountDownLatch gate,
      AtomicInteger globalOutstanding,
      AtomicInteger globalMaxOutstanding) {
    this.scheduler = scheduler;
    this.delayUs = delayUs;
    this.gate = gate;
    this.globalOutstanding = globalOutstanding;
    this.globalMaxOutstanding = globalMaxOutstanding;
  }

  @Override
  public CompletableFuture<Long> append(byte[] payload) {
    long sn = issued.incrementAndGet();
    maxOutstanding.accumulateAndGet(outstanding.incrementAndGet(), Math::max);
    globalMaxOutstanding.accumulateAndGet(globalOutstanding.incrementAndGet(), Math::max);
    CompletableFuture<Long> future = new CompletableFuture<>();
    scheduler.schedule(() -> complete(future, sn), delayUs, TimeUnit.MICROSECONDS);
    return future;
  }

  private void complete(CompletableFuture<Long> future, long sn) {
    try {
      gate.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      future.completeExceptionally(e);
      return;
    }
    outstanding.decrementAndGet();
    globalOutstanding.decrementAndGet();
    future.complete(sn);
  }

  long issued() {
    return issued.get();
  }

  int maxOutstanding() {
    return maxOutstanding.get();
  }
}
