package io.flexlog.bench.report;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The phases of a load (warm-up, measurement, stopped) and the counters its progress lines show,
 * shared by the e2e producers of one color and by the ordering load's clients. An operation belongs
 * to the phase in which it was issued: one issued during the warm-up is never measured, even if it
 * completes later.
 *
 * <p>Threading: the phase is changed by the benchmark's controlling thread and read by the load's
 * threads (volatile); the counters ({@link LongAdder}s) are updated by completion threads and read
 * by the progress reporter.
 */
public class LoadPhases implements ProgressReporter.Source {
  private enum Phase {
    WARMUP,
    MEASURE,
    STOPPED
  }

  private final LongSupplier nanoClock;
  private final LongAdder completed = new LongAdder();
  private final LongAdder measured = new LongAdder();
  private volatile Phase phase = Phase.WARMUP;
  private volatile long measureStartNs;

  /**
   * @param nanoClock the time source of every latency, {@code System::nanoTime} outside tests
   */
  public LoadPhases(LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
  }

  public final long nanoTime() {
    return nanoClock.getAsLong();
  }

  /** Ends the warm-up: operations issued from now on are measured. */
  public final void beginMeasurement() {
    measureStartNs = nanoClock.getAsLong();
    phase = Phase.MEASURE;
  }

  /** When the measurement began, on the {@link #nanoTime()} clock. */
  public final long measureStartNs() {
    return measureStartNs;
  }

  /** The load issues nothing more; outstanding operations still complete and count. */
  public final void stopIssuing() {
    phase = Phase.STOPPED;
  }

  public final boolean isStopped() {
    return phase == Phase.STOPPED;
  }

  /** Whether an operation issued now is measured. */
  public final boolean isMeasuring() {
    return phase == Phase.MEASURE;
  }

  /** {@code count} operations completed, {@code measuredCount} of them measured. */
  public final void onCompleted(int count, int measuredCount) {
    completed.add(count);
    if (measuredCount > 0) {
      measured.add(measuredCount);
    }
  }

  @Override
  public final long completed() {
    return completed.sum();
  }

  @Override
  public final long measured() {
    return measured.sum();
  }

  @Override
  public final boolean isWarmingUp() {
    return phase == Phase.WARMUP;
  }
}
