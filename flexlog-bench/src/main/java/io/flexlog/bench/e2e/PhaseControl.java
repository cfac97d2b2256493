package io.flexlog.bench.e2e;

import io.flexlog.bench.report.ProgressReporter;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The phases of one color's load (warm-up, measurement, stopped) and the counters a progress line
 * shows. An append belongs to the phase in which it was sent: one sent during the warm-up is
 * neither measured nor delivered as measured, even if it completes later.
 *
 * <p>Threading: the phase is changed by the benchmark's controlling thread and read by the producer
 * threads (volatile); the counters are updated by completion threads and read by the progress
 * reporter.
 */
final class PhaseControl implements ProgressReporter.Source {
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

  PhaseControl(LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
  }

  void beginMeasurement() {
    measureStartNs = nanoClock.getAsLong();
    phase = Phase.MEASURE;
  }

  void stop() {
    phase = Phase.STOPPED;
  }

  boolean isStopped() {
    return phase == Phase.STOPPED;
  }

  boolean isMeasuring() {
    return phase == Phase.MEASURE;
  }

  long measureStartNs() {
    return measureStartNs;
  }

  void onCompletion(boolean measuredAppend) {
    completed.increment();
    if (measuredAppend) {
      measured.increment();
    }
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
