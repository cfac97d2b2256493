package io.flexlog.bench.ordering;

import io.flexlog.bench.report.ProgressReporter;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The phases of one closed-loop ordering load, shared by its clients: warm-up, measurement,
 * stopped; plus the counters a progress line shows and the first failure of any client.
 *
 * <p>An order request belongs to the phase in which it was issued: requests issued during the
 * warm-up are never measured, even if answered later. Once stopped, clients issue nothing more and
 * report idle when their last request is answered (or when they failed).
 *
 * <p>Threading: the phase methods ({@link #beginMeasurement}, {@link #stopIssuing}, the awaits) are
 * called by one controlling thread; clients call the rest from their own threads. Counters are
 * {@link LongAdder}s, the phase is volatile.
 */
final class LoadControl implements ProgressReporter.Source {
  private enum Phase {
    WARMUP,
    MEASURE,
    STOPPED
  }

  private final LongSupplier nanoClock;
  private final CountDownLatch idleClients;
  private final CountDownLatch failed = new CountDownLatch(1);
  private final AtomicReference<String> failure = new AtomicReference<>();
  private final LongAdder completed = new LongAdder();
  private final LongAdder measured = new LongAdder();
  private volatile Phase phase = Phase.WARMUP;
  private volatile long measureStartNs;

  /**
   * @param clients how many clients will report idle
   * @param nanoClock the time source of every latency, {@code System::nanoTime} outside tests
   */
  LoadControl(int clients, LongSupplier nanoClock) {
    this.idleClients = new CountDownLatch(clients);
    this.nanoClock = nanoClock;
  }

  long nanoTime() {
    return nanoClock.getAsLong();
  }

  /** Whether a client may issue a request now: not stopped, and no client failed. */
  boolean mayIssue() {
    return phase != Phase.STOPPED && failure.get() == null;
  }

  /** Whether a request issued now is measured. */
  boolean isMeasuring() {
    return phase == Phase.MEASURE;
  }

  /** A client got answers: {@code count} in all, {@code measuredCount} of them measured. */
  void onAnswers(int count, int measuredCount) {
    completed.add(count);
    if (measuredCount > 0) {
      measured.add(measuredCount);
    }
  }

  /** A client has stopped and has nothing outstanding; each client calls this exactly once. */
  void onClientIdle() {
    idleClients.countDown();
  }

  /** Records a client's failure; the first one is the run's failure and stops every client. */
  void fail(String why) {
    if (failure.compareAndSet(null, why)) {
      failed.countDown();
    }
  }

  Optional<String> failure() {
    return Optional.ofNullable(failure.get());
  }

  /**
   * Waits for {@code time} unless a client fails first.
   *
   * @return true when a client failed
   */
  boolean awaitFailure(Duration time) throws InterruptedException {
    return failed.await(time.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Ends the warm-up: requests issued from now on are measured. */
  void beginMeasurement() {
    measureStartNs = nanoClock.getAsLong();
    phase = Phase.MEASURE;
  }

  long measureStartNs() {
    return measureStartNs;
  }

  /** Clients issue nothing more; outstanding requests still complete and count. */
  void stopIssuing() {
    phase = Phase.STOPPED;
  }

  /**
   * Waits until every client is idle.
   *
   * @return whether that happened within the timeout
   */
  boolean awaitIdle(Duration timeout) throws InterruptedException {
    return idleClients.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Clients that have not reported idle yet. */
  long busyClients() {
    return idleClients.getCount();
  }

  @Override
  public long completed() {
    return completed.sum();
  }

  @Override
  public long measured() {
    return measured.sum();
  }

  @Override
  public boolean isWarmingUp() {
    return phase == Phase.WARMUP;
  }
}
