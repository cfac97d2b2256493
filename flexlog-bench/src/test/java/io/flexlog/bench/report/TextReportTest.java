package io.flexlog.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class TextReportTest {

  @Test
  void shouldFormatTheSummary() {
    assertThat(TextReport.format(ReportFixtures.report()))
        .isEqualTo(
            """
            FlexLog append benchmark
              cluster      127.0.0.1:7070, color global
              clients      8 over 4 connections
              record bytes 1000
              duration     2.000 s measured after 1.500 s warm-up
              appends      1000
              errors       10 (0.99 %)
              throughput   500.0 appends/s, 0.50 MB/s
              latency (us) p50 500  p99 990  p99.9 999  max 1000
              first error  FlexLogTimeoutException: late
            """);
  }

  @Test
  void shouldLeaveOutTheFirstErrorLineWithoutErrors() {
    BenchReport clean =
        BenchReport.of(ReportFixtures.SETUP, ReportFixtures.measurement(0, Optional.empty()));

    assertThat(TextReport.format(clean)).doesNotContain("first error").contains("0 (0.00 %)");
  }
}
