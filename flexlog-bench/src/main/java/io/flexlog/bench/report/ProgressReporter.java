package io.flexlog.bench.report;

import io.flexlog.bench.load.LoadDriver;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Prints a progress line at a fixed interval while a load runs, so a long run shows that it is
 * alive and how fast it goes. Runs on its own daemon thread and only reads the driver's counters.
 */
public final class ProgressReporter implements AutoCloseable {
  /** How often a long run reports progress. */
  public static final Duration INTERVAL = Duration.ofSeconds(5);

  private final LoadDriver driver;
  private final PrintWriter out;
  private final long startNs = System.nanoTime();
  private final ScheduledExecutorService timer;
  private long lastNs = startNs;
  private long lastCompleted;

  private ProgressReporter(LoadDriver driver, PrintWriter out, Duration interval) {
    this.driver = driver;
    this.out = out;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "flexlog-bench-progress");
              t.setDaemon(true);
              return t;
            });
    long ms = interval.toMillis();
    timer.scheduleAtFixedRate(this::report, ms, ms, TimeUnit.MILLISECONDS);
  }

  /** Starts reporting every {@link #INTERVAL} on {@code out}; the first line after one interval. */
  public static ProgressReporter start(LoadDriver driver, PrintWriter out) {
    return new ProgressReporter(driver, out, INTERVAL);
  }

  /**
   * One progress line.
   *
   * @param elapsedNs since the run began, warm-up included
   * @param measuring whether the warm-up is over
   * @param appends appends completed so far (measured ones once measuring)
   * @param appendsPerSec throughput over the last interval
   */
  public static String line(long elapsedNs, boolean measuring, long appends, double appendsPerSec) {
    return String.format(
        Locale.ROOT,
        "[bench] %7.1f s  %-9s %12d appends  %12.1f appends/s",
        elapsedNs / 1e9,
        measuring ? "measuring" : "warm-up",
        appends,
        appendsPerSec);
  }

  private void report() {
    long now = System.nanoTime();
    long completed = driver.completedAppends();
    double rate = (completed - lastCompleted) / ((now - lastNs) / 1e9);
    lastNs = now;
    lastCompleted = completed;
    boolean measuring = !driver.isWarmingUp();
    long shown = measuring ? driver.measuredAppends() : completed;
    out.println(line(now - startNs, measuring, shown, rate));
    out.flush();
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
