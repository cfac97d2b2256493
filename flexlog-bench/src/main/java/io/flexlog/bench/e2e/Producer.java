package io.flexlog.bench.e2e;

import io.flexlog.bench.load.Errors;
import io.flexlog.bench.report.LoadPhases;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.HdrHistogram.Recorder;

/**
 * One producer client of {@code bench e2e}: a thread that appends records stamped with its {@code
 * System.nanoTime()} at send (see {@link E2ePayloadDescriptor}) until the phase control stops it.
 *
 * <p>Closed loop (no rate): one append outstanding, the next sent as soon as the previous
 * completed. With a rate: appends are sent on a fixed schedule of {@code rate} per second, with at
 * most {@link #MAX_OUTSTANDING} outstanding; a producer that falls behind more than a second skips
 * ahead instead of bursting.
 *
 * <p>Buffers: a payload array is handed to the client without a copy, so it is reused only after
 * its append completed (a pool of at most the window's size).
 *
 * <p>Threading: {@link #run()} runs on the producer's own thread; completions run on the client's
 * threads and touch only the thread-safe parts (the acked-SN table, the recorder, atomics, the
 * pool).
 */
final class Producer implements Runnable {
  /** Where appends go: {@code payload -> flexLog.appendAsync(color, payload)} in a real run. */
  @FunctionalInterface
  interface Sender {
    CompletableFuture<Long> append(byte[] payload);
  }

  /** Outstanding appends of one producer with a rate. */
  static final int MAX_OUTSTANDING = 1024;

  private static final long POLL_NS = TimeUnit.MILLISECONDS.toNanos(50);
  private static final long MAX_LAG_NS = TimeUnit.SECONDS.toNanos(1);

  private final int index;
  private final Sender sender;
  private final LoadPhases control;
  private final Recorder appendLatencyUs;
  private final LongSupplier nanoClock;
  private final int recordBytes;
  private final int colorIndex;
  private final long runId;
  private final long intervalNs;
  private final Semaphore window;
  private final ArrayBlockingQueue<byte[]> pool;
  private final AckedSns acked = new AckedSns();
  private final AtomicInteger outstanding = new AtomicInteger();
  private final AtomicReference<String> firstError = new AtomicReference<>();
  private final AtomicInteger errors = new AtomicInteger();
  private volatile long lastMeasuredAckNs = Long.MIN_VALUE;
  private long measuredAcks; // guarded by this
  private long sent;

  /**
   * @param ratePerSec appends per second, or 0 for a closed loop
   */
  Producer(
      int index,
      Sender sender,
      LoadPhases control,
      Recorder appendLatencyUs,
      LongSupplier nanoClock,
      int recordBytes,
      int colorIndex,
      long runId,
      int ratePerSec) {
    this.index = index;
    this.sender = sender;
    this.control = control;
    this.appendLatencyUs = appendLatencyUs;
    this.nanoClock = nanoClock;
    this.recordBytes = recordBytes;
    this.colorIndex = colorIndex;
    this.runId = runId;
    this.intervalNs = ratePerSec == 0 ? 0 : TimeUnit.SECONDS.toNanos(1) / ratePerSec;
    int windowSize = ratePerSec == 0 ? 1 : MAX_OUTSTANDING;
    this.window = new Semaphore(windowSize);
    this.pool = new ArrayBlockingQueue<>(windowSize);
  }

  @Override
  public void run() {
    long nextSendNs = nanoClock.getAsLong();
    while (!control.isStopped()) {
      if (intervalNs > 0) {
        long now = nanoClock.getAsLong();
        if (now - nextSendNs > MAX_LAG_NS) {
          nextSendNs = now;
        } else if (nextSendNs > now) {
          LockSupport.parkNanos(Math.min(nextSendNs - now, POLL_NS));
          continue;
        }
        nextSendNs += intervalNs;
      }
      try {
        if (!window.tryAcquire(POLL_NS, TimeUnit.NANOSECONDS)) {
          continue;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      send();
    }
  }

  private void send() {
    byte[] payload = pool.poll();
    if (payload == null) {
      payload = new byte[recordBytes];
      E2ePayloadDescriptor.writeFixed(
          payload, E2ePayloadDescriptor.KIND_DATA, colorIndex, runId, index);
    }
    boolean measured = control.isMeasuring();
    long sequence = sent++;
    long sendNs = nanoClock.getAsLong();
    E2ePayloadDescriptor.writeVariable(payload, measured, sequence, sendNs);
    outstanding.incrementAndGet();
    CompletableFuture<Long> future;
    try {
      future = sender.append(payload);
    } catch (RuntimeException e) {
      future = CompletableFuture.failedFuture(e);
    }
    byte[] buffer = payload;
    future.whenComplete((sn, error) -> complete(buffer, measured, sequence, sendNs, sn, error));
  }

  private void complete(
      byte[] payload, boolean measured, long sequence, long sendNs, Long sn, Throwable error) {
    long now = nanoClock.getAsLong();
    if (error == null) {
      acked.ack(sequence, sn);
      if (measured) {
        appendLatencyUs.recordValue(TimeUnit.NANOSECONDS.toMicros(Math.max(0, now - sendNs)));
        synchronized (this) {
          measuredAcks++;
          lastMeasuredAckNs = Math.max(lastMeasuredAckNs, now);
        }
      }
    } else {
      errors.incrementAndGet();
      firstError.compareAndSet(null, Errors.describe(error));
    }
    control.onCompleted(1, measured ? 1 : 0);
    pool.offer(payload);
    outstanding.decrementAndGet();
    window.release();
  }

  int index() {
    return index;
  }

  AckedSns acked() {
    return acked;
  }

  int outstanding() {
    return outstanding.get();
  }

  int errors() {
    return errors.get();
  }

  String firstError() {
    return firstError.get();
  }

  synchronized long measuredAcks() {
    return measuredAcks;
  }

  /** {@link Long#MIN_VALUE} when no measured append was acknowledged. */
  long lastMeasuredAckNs() {
    return lastMeasuredAckNs;
  }
}
