package io.flexlog.bench.ordering;

import io.flexlog.bench.report.LoadPhases;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
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
 * called by one controlling thread; clients call the rest from their own threads (see {@link
 * LoadPhases}).
 */
final class LoadControl extends LoadPhases {
  private final CountDownLatch idleClients;
  private final CountDownLatch failed = new CountDownLatch(1);
  private final AtomicReference<String> failure = new AtomicReference<>();

  /**
   * @param clients how many clients will report idle
   * @param nanoClock the time source of every latency, {@code System::nanoTime} outside tests
   */
  LoadControl(int clients, LongSupplier nanoClock) {
    super(nanoClock);
    this.idleClients = new CountDownLatch(clients);
  }

  /** Whether a client may issue a request now: not stopped, and no client failed. */
  boolean mayIssue() {
    return !isStopped() && failure.get() == null;
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
}
