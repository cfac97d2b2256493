package io.flexlog.client.producer.internals;

import io.flexlog.core.error.FlexLogTimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The producer's {@code buffer.memory}: bytes of records sent and not yet completed. {@link
 * #reserve} blocks while it is full, up to the caller's deadline; {@link #release} wakes the
 * waiters. Thread-safe.
 */
public final class BufferPool {
  private final long totalBytes;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition freed = lock.newCondition();
  private long usedBytes;
  private int waiters;

  public BufferPool(long totalBytes) {
    this.totalBytes = totalBytes;
  }

  /**
   * Takes {@code bytes}, waiting until {@code deadlineNs} ({@link System#nanoTime}) for room.
   *
   * @throws FlexLogTimeoutException if there is no room by then; nothing is taken
   */
  public void reserve(long bytes, long deadlineNs, long maxBlockMs) throws InterruptedException {
    lock.lock();
    try {
      waiters++;
      try {
        while (usedBytes + bytes > totalBytes && usedBytes > 0) {
          long leftNs = deadlineNs - System.nanoTime();
          if (leftNs <= 0) {
            throw new FlexLogTimeoutException(
                "buffer.memory="
                    + totalBytes
                    + " is full ("
                    + usedBytes
                    + " bytes of records in flight) and no room for "
                    + bytes
                    + " more bytes came free within max.block.ms="
                    + maxBlockMs
                    + "; the record was not sent");
          }
          freed.awaitNanos(leftNs);
        }
      } finally {
        waiters--;
      }
      usedBytes += bytes;
    } finally {
      lock.unlock();
    }
  }

  public void release(long bytes) {
    lock.lock();
    try {
      usedBytes -= bytes;
      freed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  public long availableBytes() {
    lock.lock();
    try {
      return totalBytes - usedBytes;
    } finally {
      lock.unlock();
    }
  }

  public long totalBytes() {
    return totalBytes;
  }

  public int waiters() {
    lock.lock();
    try {
      return waiters;
    } finally {
      lock.unlock();
    }
  }

  /** Nanoseconds to wait for {@code ms}; a helper for callers computing deadlines. */
  public static long nanos(long ms) {
    return TimeUnit.MILLISECONDS.toNanos(ms);
  }
}
