package io.flexlog.client.producer.internals;

import io.flexlog.core.error.FlexLogTimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The producer's {@code buffer.memory}: bytes of records sent and not yet completed. {@link
 * #reserve} blocks while it is full, up to the caller's deadline; {@link #release} frees bytes.
 *
 * <p>The counter is lock-free, because {@link #release} runs on the client's event loop once per
 * completed record: it takes the lock only to wake waiting senders, and only once enough bytes came
 * free since the last wake-up ({@link #signalBytes}). A waiter re-checks at least every
 * millisecond, so a wake-up that is saved costs it at most that. Thread-safe.
 */
public final class BufferPool {
  private static final long RECHECK_NS = 1_000_000L;

  private final long totalBytes;
  private final long signalBytes;
  private final AtomicLong usedBytes = new AtomicLong();
  private final AtomicLong freedSinceSignal = new AtomicLong();
  private final AtomicInteger waiters = new AtomicInteger();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition freed = lock.newCondition();

  public BufferPool(long totalBytes) {
    this.totalBytes = totalBytes;
    this.signalBytes = Math.max(1, Math.min(64 * 1024, totalBytes / 4));
  }

  /**
   * Takes {@code bytes}, waiting until {@code deadlineNs} ({@link System#nanoTime}) for room. A
   * record larger than the whole buffer is let through when nothing else is in flight.
   *
   * @throws FlexLogTimeoutException if there is no room by then; nothing is taken
   */
  public void reserve(long bytes, long deadlineNs, long maxBlockMs) throws InterruptedException {
    if (tryTake(bytes)) {
      return;
    }
    waiters.incrementAndGet();
    lock.lock();
    try {
      while (!tryTake(bytes)) {
        long leftNs = deadlineNs - System.nanoTime();
        if (leftNs <= 0) {
          throw new FlexLogTimeoutException(
              "buffer.memory="
                  + totalBytes
                  + " is full ("
                  + usedBytes.get()
                  + " bytes of records in flight) and no room for "
                  + bytes
                  + " more bytes came free within max.block.ms="
                  + maxBlockMs
                  + "; the record was not sent");
        }
        freed.awaitNanos(Math.min(leftNs, RECHECK_NS));
      }
    } finally {
      lock.unlock();
      waiters.decrementAndGet();
    }
  }

  private boolean tryTake(long bytes) {
    while (true) {
      long used = usedBytes.get();
      if (used > 0 && used + bytes > totalBytes) {
        return false;
      }
      if (usedBytes.compareAndSet(used, used + bytes)) {
        return true;
      }
    }
  }

  public void release(long bytes) {
    usedBytes.addAndGet(-bytes);
    if (waiters.get() > 0 && freedSinceSignal.addAndGet(bytes) >= signalBytes) {
      freedSinceSignal.set(0);
      lock.lock();
      try {
        freed.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }

  public long availableBytes() {
    return totalBytes - usedBytes.get();
  }

  public long totalBytes() {
    return totalBytes;
  }

  public int waiters() {
    return waiters.get();
  }
}
