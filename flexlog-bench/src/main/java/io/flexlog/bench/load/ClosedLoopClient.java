package io.flexlog.bench.load;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

/**
 * One logical client of a closed-loop load: it has exactly one append outstanding and issues the
 * next as soon as the previous completes, on the thread that completed it.
 *
 * <p>Threading: the client runs on whichever thread completed its previous append. Its plain fields
 * are written before an append is issued and read when it completes, so the future's completion
 * orders them. An append can complete synchronously (a fake, or a client-side rejection); the
 * {@code wip} counter turns that into a loop instead of a recursion, so a long run of synchronous
 * failures cannot overflow the stack.
 */
final class ClosedLoopClient implements BiConsumer<Long, Throwable> {
  private final LoadDriver driver;
  private final AsyncAppender appender;
  private final byte[] payload;
  private final AtomicInteger wip = new AtomicInteger();

  private long issueNs;
  private boolean measured;
  private long lastMeasuredCompletionNs = Long.MIN_VALUE;

  ClosedLoopClient(LoadDriver driver, AsyncAppender appender, byte[] payload) {
    this.driver = driver;
    this.appender = appender;
    this.payload = payload;
  }

  void start() {
    scheduleNext();
  }

  /** Completion of the outstanding append. */
  @Override
  public void accept(Long sn, Throwable error) {
    long now = driver.onCompletion(measured, issueNs, error);
    if (measured) {
      lastMeasuredCompletionNs = now;
    }
    scheduleNext();
  }

  /** {@link Long#MIN_VALUE} if no measured append completed; read only once the client is idle. */
  long lastMeasuredCompletionNs() {
    return lastMeasuredCompletionNs;
  }

  private void scheduleNext() {
    if (wip.getAndIncrement() != 0) {
      return; // completed inside issue(): the loop below issues the next one
    }
    int missed = 1;
    do {
      if (!issue()) {
        driver.onClientIdle(); // nothing outstanding, so nothing touches wip again
        return;
      }
      missed = wip.addAndGet(-missed);
    } while (missed != 0);
  }

  private boolean issue() {
    LoadDriver.Admission admission = driver.admit();
    if (admission == LoadDriver.Admission.STOP) {
      return false;
    }
    measured = admission == LoadDriver.Admission.MEASURED;
    issueNs = driver.nanoTime();
    CompletableFuture<Long> future;
    try {
      future = appender.append(payload);
    } catch (RuntimeException e) {
      future = CompletableFuture.failedFuture(e);
    }
    future.whenComplete(this);
    return true;
  }
}
