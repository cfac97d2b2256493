package io.flexlog.bench.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.HdrHistogram.Recorder;

/**
 * A closed-loop append load: one {@link ClosedLoopClient} per appender, each with exactly one
 * append outstanding, so the offered load adapts to the latency of the system under test.
 *
 * <p>Phases: warm-up, measurement, stopped. An append belongs to the phase in which it was issued:
 * appends issued during the warm-up are never measured, even if they complete later. With a
 * measurement budget (a {@code --count} run) the clients stop by themselves once that many appends
 * were issued in the measurement; otherwise the controller calls {@link #stopIssuing()}.
 *
 * <p>Threading: {@link #start()}, {@link #beginMeasurement()}, {@link #stopIssuing()} and the await
 * methods are called by one controlling thread; the clients run on the threads that complete their
 * appends. Latencies go to an HdrHistogram {@link Recorder}, which writers update wait-free.
 */
public final class LoadDriver {
  /** What a client may do next. */
  enum Admission {
    WARMUP,
    MEASURED,
    STOP
  }

  private enum Phase {
    WARMUP,
    MEASURE,
    STOPPED
  }

  /** Latencies above this many microseconds are still recorded: the histogram resizes itself. */
  private static final int SIGNIFICANT_DIGITS = 3;

  private final List<ClosedLoopClient> clients;
  private final LongSupplier nanoClock;
  private final AtomicLong measureBudget;
  private final Recorder latencyUs = new Recorder(SIGNIFICANT_DIGITS);
  private final LongAdder completions = new LongAdder();
  private final LongAdder successes = new LongAdder();
  private final LongAdder errors = new LongAdder();
  private final AtomicReference<String> firstError = new AtomicReference<>();
  private final CountDownLatch idleClients;
  private volatile Phase phase = Phase.WARMUP;
  private volatile long measureStartNs;
  private boolean started;

  /**
   * @param appenders one per client; the same appender may serve several clients
   * @param payload sent by every append; never modified
   * @param measureBudget appends to issue in the measurement, or {@link Long#MAX_VALUE} to run
   *     until {@link #stopIssuing()}
   * @param nanoClock the time source for latencies, {@code System::nanoTime} outside tests
   */
  public LoadDriver(
      List<AsyncAppender> appenders, byte[] payload, long measureBudget, LongSupplier nanoClock) {
    if (appenders.isEmpty()) {
      throw new IllegalArgumentException("a load needs at least one client");
    }
    if (measureBudget < 1) {
      throw new IllegalArgumentException("measureBudget must be >= 1, got " + measureBudget);
    }
    this.nanoClock = nanoClock;
    this.measureBudget = new AtomicLong(measureBudget);
    this.idleClients = new CountDownLatch(appenders.size());
    List<ClosedLoopClient> list = new ArrayList<>(appenders.size());
    for (AsyncAppender appender : appenders) {
      list.add(new ClosedLoopClient(this, appender, payload));
    }
    this.clients = List.copyOf(list);
  }

  public int clients() {
    return clients.size();
  }

  /** Lets every client issue its first append. Called once. */
  public void start() {
    if (started) {
      throw new IllegalStateException("already started");
    }
    started = true;
    for (ClosedLoopClient client : clients) {
      client.start();
    }
  }

  /** Ends the warm-up: appends issued from now on are measured. May be called before start. */
  public void beginMeasurement() {
    if (phase != Phase.WARMUP) {
      throw new IllegalStateException("measurement already began");
    }
    measureStartNs = nanoClock.getAsLong();
    phase = Phase.MEASURE;
  }

  /** Clients issue nothing more; outstanding appends still complete and count. */
  public void stopIssuing() {
    phase = Phase.STOPPED;
  }

  /**
   * Waits until every client has stopped and has nothing outstanding.
   *
   * @return whether that happened within the timeout
   */
  public boolean awaitIdle(Duration timeout) throws InterruptedException {
    return idleClients.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Waits without a limit until every client has stopped and has nothing outstanding. */
  public void awaitIdle() throws InterruptedException {
    idleClients.await();
  }

  /** Appends completed so far, warm-up included; for progress reports from any thread. */
  public long completedAppends() {
    return completions.sum();
  }

  /** Measured appends completed so far; for progress reports from any thread. */
  public long measuredAppends() {
    return successes.sum() + errors.sum();
  }

  /** Whether the warm-up is still going on; for progress reports from any thread. */
  public boolean isWarmingUp() {
    return phase == Phase.WARMUP;
  }

  /**
   * The numbers of the measurement. Exact once {@link #awaitIdle} returned true; after a timeout,
   * the appends still outstanding are missing from it.
   */
  public Measurement measurement() {
    if (phase == Phase.WARMUP) {
      throw new IllegalStateException("the measurement has not begun");
    }
    long end = Long.MIN_VALUE;
    for (ClosedLoopClient client : clients) {
      end = Math.max(end, client.lastMeasuredCompletionNs());
    }
    long elapsedNs = end == Long.MIN_VALUE ? 0 : Math.max(0, end - measureStartNs);
    return new Measurement(
        successes.sum(),
        errors.sum(),
        elapsedNs,
        latencyUs.getIntervalHistogram(),
        Optional.ofNullable(firstError.get()),
        (int) idleClients.getCount());
  }

  long nanoTime() {
    return nanoClock.getAsLong();
  }

  Admission admit() {
    Phase current = phase;
    if (current == Phase.WARMUP) {
      return Admission.WARMUP;
    }
    if (current == Phase.MEASURE && measureBudget.getAndDecrement() > 0) {
      return Admission.MEASURED;
    }
    return Admission.STOP;
  }

  /**
   * Records one completed append.
   *
   * @return the completion time
   */
  long onCompletion(boolean measured, long issueNs, Throwable error) {
    long now = nanoClock.getAsLong();
    completions.increment();
    if (!measured) {
      return now;
    }
    if (error == null) {
      latencyUs.recordValue(TimeUnit.NANOSECONDS.toMicros(Math.max(0, now - issueNs)));
      successes.increment();
    } else {
      errors.increment();
      firstError.compareAndSet(null, Errors.describe(error));
    }
    return now;
  }

  void onClientIdle() {
    idleClients.countDown();
  }
}
