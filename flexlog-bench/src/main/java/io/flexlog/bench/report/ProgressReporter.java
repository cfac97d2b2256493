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
 * alive and how fast it goes. Runs on its own daemon thread and only reads the load's counters.
 */
public final class ProgressReporter implements AutoCloseable {
  /** How often a long run reports progress. */
  public static final Duration INTERVAL = Duration.ofSeconds(5);

  /** The counters a progress line shows; read from the reporter's thread. */
  public interface Source {
    /** Operations completed so far, warm-up included. */
    long completed();

    /** Measured operations completed so far. */
    long measured();

    /** Whether the warm-up is still going on. */
    boolean isWarmingUp();
  }

  private final Source source;
  private final String unit;
  private final PrintWriter out;
  private final long startNs = System.nanoTime();
  private final ScheduledExecutorService timer;
  private long lastNs = startNs;
  private long lastCompleted;

  private ProgressReporter(Source source, String unit, PrintWriter out, Duration interval) {
    this.source = source;
    this.unit = unit;
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
    Source source =
        new Source() {
          @Override
          public long completed() {
            return driver.completedAppends();
          }

          @Override
          public long measured() {
            return driver.measuredAppends();
          }

          @Override
          public boolean isWarmingUp() {
            return driver.isWarmingUp();
          }
        };
    return start(source, "appends", out);
  }

  /**
   * Starts reporting every {@link #INTERVAL} on {@code out}, counting {@code unit} (a plural noun
   * such as "SNs"); the first line after one interval.
   */
  public static ProgressReporter start(Source source, String unit, PrintWriter out) {
    return start(source, unit, out, INTERVAL);
  }

  /** Like {@link #start(Source, String, PrintWriter)}, reporting every {@code interval}. */
  public static ProgressReporter start(
      Source source, String unit, PrintWriter out, Duration interval) {
    if (interval.toMillis() < 1) {
      throw new IllegalArgumentException("interval must be at least 1 ms, got " + interval);
    }
    return new ProgressReporter(source, unit, out, interval);
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
    return line(elapsedNs, measuring, appends, appendsPerSec, "appends");
  }

  /** One progress line counting {@code unit}; see {@link #line(long, boolean, long, double)}. */
  public static String line(
      long elapsedNs, boolean measuring, long count, double perSec, String unit) {
    return String.format(
        Locale.ROOT,
        "[bench] %7.1f s  %-9s %12d %s  %12.1f %s/s",
        elapsedNs / 1e9,
        measuring ? "measuring" : "warm-up",
        count,
        unit,
        perSec,
        unit);
  }

  private void report() {
    long now = System.nanoTime();
    long completed = source.completed();
    double rate = (completed - lastCompleted) / ((now - lastNs) / 1e9);
    lastNs = now;
    lastCompleted = completed;
    boolean measuring = !source.isWarmingUp();
    long shown = measuring ? source.measured() : completed;
    out.println(line(now - startNs, measuring, shown, rate, unit));
    out.flush();
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
