package io.flexlog.bench.load;

import java.time.Duration;
import java.util.Optional;

/**
 * Takes a {@link LoadDriver} through its phases: warm-up for a time, then measure either for a time
 * or until the driver's budget of appends is used up, then wait for the last appends.
 *
 * @param warmup how long appends are issued but not measured; zero for none
 * @param duration how long the measurement issues appends; empty when the driver has a budget
 * @param drainTimeout how long to wait for outstanding appends after the clients stop issuing
 */
public record LoadRunner(Duration warmup, Optional<Duration> duration, Duration drainTimeout) {

  public LoadRunner {
    if (warmup.isNegative()) {
      throw new IllegalArgumentException("warmup must be >= 0, got " + warmup);
    }
    if (duration.isPresent() && !isPositive(duration.get())) {
      throw new IllegalArgumentException("duration must be > 0, got " + duration.get());
    }
    if (!isPositive(drainTimeout)) {
      throw new IllegalArgumentException("drainTimeout must be > 0, got " + drainTimeout);
    }
  }

  /**
   * Runs the load to the end and returns what it measured; {@link Measurement#clientsStillBusy()}
   * is non-zero if outstanding appends did not complete within the drain timeout.
   */
  public Measurement run(LoadDriver driver) throws InterruptedException {
    if (warmup.isZero()) {
      driver.beginMeasurement();
      driver.start();
    } else {
      driver.start();
      driver.awaitIdle(warmup);
      driver.beginMeasurement();
    }
    if (duration.isPresent()) {
      driver.awaitIdle(duration.get());
      driver.stopIssuing();
      driver.awaitIdle(drainTimeout);
    } else {
      driver.awaitIdle();
    }
    return driver.measurement();
  }

  private static boolean isPositive(Duration d) {
    return !d.isNegative() && !d.isZero();
  }
}
