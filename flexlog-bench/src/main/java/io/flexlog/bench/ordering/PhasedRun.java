package io.flexlog.bench.ordering;

import io.flexlog.bench.report.ProgressReporter;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Takes one {@link OrderingLoad} through its phases: prepare (connect, first answer), warm-up,
 * measurement, stop, drain; then combines the clients' numbers into a {@link SideResult}. Both
 * sides of the comparison run through this class, so they are measured the same way.
 *
 * @param warmup time before the measurement; zero for none
 * @param duration time during which measured requests are issued
 * @param prepareTimeout how long connecting and the first answer of every client may take
 * @param drainTimeout how long the answers to the last requests may take after the stop
 */
record PhasedRun(
    Duration warmup, Duration duration, Duration prepareTimeout, Duration drainTimeout) {
  private static final Duration SNAPSHOT_TIMEOUT = Duration.ofSeconds(10);

  /**
   * Runs the load; never throws for a failure of the system under test, which is reported in the
   * result instead.
   *
   * @param progress where progress lines go (stderr in the command)
   */
  SideResult run(
      String label,
      String description,
      OrderingLoad load,
      LoadControl control,
      int clients,
      PrintWriter progress)
      throws InterruptedException {
    say(progress, label + ": " + description);
    try {
      load.prepare(prepareTimeout);
    } catch (LoadFailure e) {
      return SideResult.failed(label, description, e.getMessage());
    }
    say(
        progress,
        label
            + ": "
            + clients
            + " clients ready; warm-up "
            + seconds(warmup)
            + ", then measuring "
            + seconds(duration));
    Optional<String> drainFailure = Optional.empty();
    try (ProgressReporter reporter = ProgressReporter.start(control, "SNs", progress)) {
      if (warmup.isZero()) {
        control.beginMeasurement();
        load.start();
      } else {
        load.start();
        control.awaitFailure(warmup);
        control.beginMeasurement();
      }
      control.awaitFailure(duration);
      control.stopIssuing();
      if (!control.awaitIdle(drainTimeout)) {
        drainFailure =
            Optional.of(
                control.busyClients()
                    + " clients still waited for answers "
                    + seconds(drainTimeout)
                    + " after the stop");
      }
    }
    List<ClientStats> stats;
    try {
      stats = load.snapshot(SNAPSHOT_TIMEOUT);
    } catch (LoadFailure e) {
      return SideResult.failed(label, description, e.getMessage());
    }
    Optional<String> failure = control.failure().isPresent() ? control.failure() : drainFailure;
    return SideResult.of(label, description, stats, control.measureStartNs(), failure);
  }

  private static void say(PrintWriter out, String line) {
    out.println("[bench] " + line);
    out.flush();
  }

  private static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }
}
