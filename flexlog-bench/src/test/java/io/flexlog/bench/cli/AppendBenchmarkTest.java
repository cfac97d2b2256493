package io.flexlog.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.bench.load.Measurement;
import io.flexlog.bench.report.BenchReport;
import io.flexlog.bench.report.JsonReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AppendBenchmarkTest {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private static AppendSettings settings(Optional<Path> json) {
    return new AppendSettings(
        "127.0.0.1:7070",
        "global",
        4,
        2,
        512,
        Optional.of(Duration.ofSeconds(1)),
        OptionalLong.empty(),
        Duration.ofSeconds(2),
        json);
  }

  private static Measurement measurement(long errors, int stillBusy) {
    Histogram latencies = new Histogram(3);
    for (int i = 0; i < 1000; i++) {
      latencies.recordValue(100 + i);
    }
    return new Measurement(
        1000,
        errors,
        1_000_000_000L,
        latencies,
        Optional.of("FlexLogTimeoutException: t"),
        stillBusy);
  }

  private int report(AppendSettings settings, Measurement m) {
    return AppendBenchmark.report(
        settings,
        m,
        Duration.ofSeconds(40),
        new PrintWriter(out, true),
        new PrintWriter(err, true));
  }

  @Test
  void shouldSucceedAtOnePercentErrorsAndPrintTheSummary() {
    assertThat(report(settings(Optional.empty()), measurement(10, 0))).isZero();
    assertThat(out.toString()).startsWith("FlexLog append benchmark\n").contains("errors       10");
    assertThat(err.toString()).isEmpty();
  }

  @Test
  void shouldFailAboveOnePercentErrorsNamingTheFirstError() {
    assertThat(report(settings(Optional.empty()), measurement(11, 0))).isEqualTo(1);
    assertThat(err.toString())
        .contains("11 of 1011 appends failed (1.09 %, more than 1 %)")
        .contains("first error: FlexLogTimeoutException: t");
    assertThat(out.toString()).contains("FlexLog append benchmark");
  }

  @Test
  void shouldFailWhenAppendsWereStillOutstanding() {
    assertThat(report(settings(Optional.empty()), measurement(0, 2))).isEqualTo(1);
    assertThat(err.toString()).contains("2 appends were still outstanding 40 s after");
  }

  @Test
  void shouldWriteTheJsonReportToTheFile(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("run.json");
    AppendSettings settings = settings(Optional.of(file));
    Measurement m = measurement(0, 0);

    assertThat(report(settings, m)).isZero();
    assertThat(Files.readString(file))
        .isEqualTo(JsonReport.format(BenchReport.of(settings.setup(), m)) + "\n");
  }

  @Test
  void shouldFailWhenTheJsonFileCannotBeWritten(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("gone/run.json");

    assertThat(report(settings(Optional.of(file)), measurement(0, 0))).isEqualTo(1);
    assertThat(err.toString()).contains("cannot write --json " + file);
  }
}
