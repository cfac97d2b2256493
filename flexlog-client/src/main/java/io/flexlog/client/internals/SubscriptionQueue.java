package io.flexlog.client.internals;

import io.flexlog.client.LogRecord;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.protocol.SubscribeRecordsDescriptor;
import java.time.Duration;
import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The hand-over between a subscription's loop side and the application: the records released by the
 * merge, in order, and what the application consumed per shard since the loop last looked.
 *
 * <p>Consumption reaches the loop as the {@code grantTask}, scheduled when a quarter window was
 * consumed, or as soon as the queue runs dry while some replica is low on credit ({@link
 * #creditLow}), so that a replica is never left without credit while the application waits.
 *
 * <p>Threading: every method takes the lock; {@link #take} is called by the application's thread,
 * the others by the client's event loop (and {@link #close} by any thread).
 */
final class SubscriptionQueue {
  private final long windowBytes;
  private final Executor loop;
  private final Runnable grantTask;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition available = lock.newCondition();
  private LogRecord[] queue = new LogRecord[64];
  private int[] queueShard = new int[64];
  private int head;
  private int size;
  private long[] consumed;
  private long unreported;
  private boolean grantScheduled;
  private FlexLogException failure;
  private boolean closed;
  private boolean creditLow;
  private volatile long lastSn;

  /** Told when the queue turns non-empty or fails (a reader waiting on several streams). */
  private volatile Runnable onAvailable;

  SubscriptionQueue(int shards, long fromSn, long windowBytes, Executor loop, Runnable grantTask) {
    this.consumed = new long[shards];
    this.lastSn = Math.max(0, fromSn - 1);
    this.windowBytes = windowBytes;
    this.loop = loop;
    this.grantTask = grantTask;
  }

  /** Makes room for the consumption of one more shard (a shard joined the subtree). */
  void addShard() {
    lock.lock();
    try {
      consumed = Arrays.copyOf(consumed, consumed.length + 1);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Registers what to run (on the client's event loop, so it must not block) whenever the queue
   * turns non-empty or fails, for a reader that waits on several subscriptions at once.
   */
  void onAvailable(Runnable listener) {
    onAvailable = listener;
    boolean ready;
    lock.lock();
    try {
      ready = size > 0 || failure != null;
    } finally {
      lock.unlock();
    }
    if (ready) {
      listener.run();
    }
  }

  /**
   * Records released together, with the index of the shard each came from; reused by its owner (the
   * client's event loop), so that a batch costs no allocation.
   */
  static final class Batch {
    private LogRecord[] records = new LogRecord[64];
    private int[] shards = new int[64];
    private int count;

    void add(LogRecord record, int shard) {
      if (count == records.length) {
        records = Arrays.copyOf(records, count * 2);
        shards = Arrays.copyOf(shards, count * 2);
      }
      records[count] = record;
      shards[count] = shard;
      count++;
    }

    int count() {
      return count;
    }
  }

  /**
   * Appends the records of {@code batch} in order, under one lock, wakes a waiting reader once, and
   * empties the batch.
   */
  void offer(Batch batch) {
    int n = batch.count;
    if (n == 0) {
      return;
    }
    boolean first;
    lock.lock();
    try {
      first = size == 0;
      while (queue.length - size < n) {
        grow();
      }
      for (int i = 0; i < n; i++) {
        int tail = (head + size) % queue.length;
        queue[tail] = batch.records[i];
        queueShard[tail] = batch.shards[i];
        size++;
      }
      available.signal();
    } finally {
      lock.unlock();
    }
    Arrays.fill(batch.records, 0, n, null);
    batch.count = 0;
    Runnable listener = onAvailable;
    if (first && listener != null) {
      listener.run();
    }
  }

  private void grow() {
    LogRecord[] records = new LogRecord[queue.length * 2];
    int[] shards = new int[queue.length * 2];
    for (int i = 0; i < size; i++) {
      records[i] = queue[(head + i) % queue.length];
      shards[i] = queueShard[(head + i) % queue.length];
    }
    queue = records;
    queueShard = shards;
    head = 0;
  }

  /**
   * Takes the next record, waiting up to {@code timeoutNs} (forever if negative).
   *
   * @return null on timeout or once closed
   * @throws FlexLogException the subscription's failure, once every record before it was taken
   */
  LogRecord take(long timeoutNs) throws InterruptedException {
    lock.lock();
    try {
      long remaining = timeoutNs;
      while (size == 0 && failure == null && !closed) {
        if (timeoutNs < 0) {
          available.await();
        } else {
          if (remaining <= 0) {
            return null;
          }
          remaining = available.awaitNanos(remaining);
        }
      }
      if (size == 0) {
        if (closed) {
          return null;
        }
        throw failure;
      }
      return next();
    } finally {
      lock.unlock();
    }
  }

  private LogRecord next() {
    LogRecord record = queue[head];
    int shard = queueShard[head];
    queue[head] = null;
    head = (head + 1) % queue.length;
    size--;
    long cost = SubscribeRecordsDescriptor.recordCost(record.payload().length);
    consumed[shard] += cost;
    unreported += cost;
    if (!grantScheduled
        && (unreported >= windowBytes / 4 || (size == 0 && creditLow && unreported > 0))) {
      grantScheduled = true;
      loop.execute(grantTask);
    }
    lastSn = record.sn();
    return record;
  }

  /**
   * Takes up to {@code max} queued records under one lock, without waiting.
   *
   * @throws FlexLogException the subscription's failure, if nothing was queued before it
   */
  int drainTo(java.util.function.Consumer<LogRecord> sink, int max) {
    lock.lock();
    try {
      if (closed) {
        return 0;
      }
      if (size == 0 && failure != null) {
        throw failure;
      }
      int n = Math.min(max, size);
      for (int i = 0; i < n; i++) {
        sink.accept(next());
      }
      return n;
    } finally {
      lock.unlock();
    }
  }

  /** Moves what the application consumed since last time out of {@code held}, per shard. */
  void absorbConsumed(long[] held) {
    lock.lock();
    try {
      for (int i = 0; i < consumed.length; i++) {
        held[i] -= consumed[i];
        consumed[i] = 0;
      }
      unreported = 0;
      grantScheduled = false;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Notes whether some replica has less than half a window of credit left; if so and the queue is
   * empty, reports the consumption not reported yet at once.
   */
  void creditLow(boolean low) {
    lock.lock();
    try {
      // Under the lock, so that a take() racing with this either sees the flag or left its
      // consumption for the check below.
      creditLow = low;
      if (low && size == 0 && unreported > 0 && !grantScheduled) {
        grantScheduled = true;
        loop.execute(grantTask);
      }
    } finally {
      lock.unlock();
    }
  }

  /** A stream opened with less than half a window of credit. */
  void markCreditLow() {
    lock.lock();
    try {
      creditLow = true;
    } finally {
      lock.unlock();
    }
  }

  /** Ends the queue with an error, thrown to the reader after the records queued before it. */
  void fail(FlexLogException error) {
    lock.lock();
    try {
      if (failure == null) {
        failure = error;
      }
      available.signalAll();
    } finally {
      lock.unlock();
    }
    Runnable listener = onAvailable;
    if (listener != null) {
      listener.run();
    }
  }

  /**
   * Closes the queue: drops what is queued and wakes the reader.
   *
   * @return false if it was closed already
   */
  boolean close() {
    lock.lock();
    try {
      if (closed) {
        return false;
      }
      closed = true;
      Arrays.fill(queue, null);
      size = 0;
      available.signalAll();
      return true;
    } finally {
      lock.unlock();
    }
  }

  boolean isClosed() {
    lock.lock();
    try {
      return closed;
    } finally {
      lock.unlock();
    }
  }

  /** {@link io.flexlog.client.RecordStream#poll}: fails once closed. */
  LogRecord poll(Duration timeout, String colorName) {
    if (isClosed()) {
      throw new IllegalStateException("the subscription to '" + colorName + "' is closed");
    }
    try {
      return take(Math.max(0, timeout.toNanos()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FlexLogException("interrupted while polling '" + colorName + "'", e);
    }
  }

  /** Iterates the records, blocking, until the subscription is closed or fails. */
  Iterator<LogRecord> iterator(String colorName) {
    return new Iterator<>() {
      private LogRecord next;

      @Override
      public boolean hasNext() {
        if (next == null) {
          try {
            next = take(-1);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FlexLogException("interrupted while waiting for '" + colorName + "'", e);
          }
        }
        return next != null;
      }

      @Override
      public LogRecord next() {
        if (!hasNext()) {
          throw new NoSuchElementException("the subscription to '" + colorName + "' is closed");
        }
        LogRecord record = next;
        next = null;
        return record;
      }
    };
  }

  /** The SN of the last record taken (or the one before the subscription's start). */
  long lastSn() {
    return lastSn;
  }
}
