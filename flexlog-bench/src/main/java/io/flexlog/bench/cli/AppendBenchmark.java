package io.flexlog.bench.cli;

import io.flexlog.bench.load.AsyncAppender;
import io.flexlog.bench.load.LoadDriver;
import io.flexlog.bench.load.LoadRunner;
import io.flexlog.bench.load.Measurement;
import io.flexlog.bench.report.BenchReport;
import io.flexlog.bench.report.JsonReport;
import io.flexlog.bench.report.ProgressReporter;
import io.flexlog.bench.report.ReportOutput;
import io.flexlog.bench.report.TextReport;
import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.core.model.Color;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * Runs {@code flexlog bench append} against a cluster: connects the client instances, checks the
 * settings against the cluster, runs the load and writes the reports.
 */
final class AppendBenchmark {
  static final int EXIT_OK = 0;
  static final int EXIT_FAILED = 1;
  static final int EXIT_USAGE = 2;

  /** Extra wait for the last appends beyond the client's own delivery timeout. */
  private static final Duration DRAIN_MARGIN = Duration.ofSeconds(10);

  private AppendBenchmark() {}

  static int run(AppendSettings settings, PrintWriter out, PrintWriter err)
      throws InterruptedException {
    FlexLogConfig config = FlexLogConfig.builder().bootstrapServers(settings.bootstrap()).build();
    List<FlexLog> logs = new ArrayList<>(settings.connections());
    try {
      try {
        for (int i = 0; i < settings.connections(); i++) {
          logs.add(FlexLog.connect(config));
        }
      } catch (RuntimeException e) {
        err.println("cannot connect to " + settings.bootstrap() + ": " + e.getMessage());
        return EXIT_FAILED;
      }
      Optional<String> mismatch = checkAgainstCluster(settings, logs.get(0));
      if (mismatch.isPresent()) {
        err.println(mismatch.get());
        return EXIT_USAGE;
      }
      Duration drainTimeout = config.deliveryTimeout().plus(DRAIN_MARGIN);
      Measurement measurement = measure(settings, logs, drainTimeout, err);
      return report(settings, measurement, drainTimeout, out, err);
    } finally {
      for (FlexLog log : logs) {
        log.close();
      }
    }
  }

  private static Optional<String> checkAgainstCluster(AppendSettings settings, FlexLog log) {
    if (log.topology().color(settings.color()).isEmpty()) {
      return Optional.of(
          "--color: unknown color '"
              + settings.color()
              + "'; the cluster has "
              + log.topology().colors().stream().map(Color::name).sorted().toList());
    }
    if (settings.recordBytes() > log.maxRecordBytes()) {
      return Optional.of(
          "--record-bytes "
              + settings.recordBytes()
              + " exceeds the cluster's max.record.bytes="
              + log.maxRecordBytes());
    }
    return Optional.empty();
  }

  private static Measurement measure(
      AppendSettings settings, List<FlexLog> logs, Duration drainTimeout, PrintWriter err)
      throws InterruptedException {
    byte[] payload = new byte[settings.recordBytes()];
    new SplittableRandom().nextBytes(payload);
    List<AsyncAppender> appenders = new ArrayList<>(settings.clients());
    for (int i = 0; i < settings.clients(); i++) {
      FlexLog log = logs.get(i % logs.size());
      String color = settings.color();
      appenders.add(p -> log.appendAsync(color, p));
    }
    LoadDriver driver =
        new LoadDriver(
            appenders, payload, settings.count().orElse(Long.MAX_VALUE), System::nanoTime);
    LoadRunner runner = new LoadRunner(settings.warmup(), settings.duration(), drainTimeout);
    try (ProgressReporter progress = ProgressReporter.start(driver, err)) {
      return runner.run(driver);
    }
  }

  /** Prints the summary, writes the JSON file and decides the exit code. */
  static int report(
      AppendSettings settings,
      Measurement measurement,
      Duration drainTimeout,
      PrintWriter out,
      PrintWriter err) {
    BenchReport report = BenchReport.of(settings.setup(), measurement);
    out.print(TextReport.format(report));
    out.flush();
    if (!ReportOutput.writeJson(JsonReport.format(report), settings.json(), err)) {
      return EXIT_FAILED;
    }
    if (measurement.clientsStillBusy() > 0) {
      err.println(
          measurement.clientsStillBusy()
              + " appends were still outstanding "
              + drainTimeout.toSeconds()
              + " s after the clients stopped; the results leave them out");
      return EXIT_FAILED;
    }
    if (report.tooManyErrors()) {
      err.println(
          String.format(
              Locale.ROOT,
              "%d of %d appends failed (%.2f %%, more than %.0f %%); first error: %s",
              report.errors(),
              report.errors() + report.appends(),
              report.errorRatio() * 100,
              BenchReport.MAX_ERROR_RATIO * 100,
              report.firstError().orElse("?")));
      return EXIT_FAILED;
    }
    return EXIT_OK;
  }
}
