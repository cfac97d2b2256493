package io.flexlog.bench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.flexlog.bench.load.Measurement;
import java.util.Optional;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class BenchReportTest {

  @Test
  void shouldDeriveThroughputAndPercentilesFromTheMeasurement() {
    BenchReport r = ReportFixtures.report();

    assertThat(r.appends()).isEqualTo(1000);
    assertThat(r.errors()).isEqualTo(10);
    assertThat(r.appendsPerSec()).isCloseTo(500.0, within(1e-9));
    assertThat(r.megabytesPerSec()).isCloseTo(0.5, within(1e-9));
    assertThat(r.p50Us()).isEqualTo(500);
    assertThat(r.p99Us()).isEqualTo(990);
    assertThat(r.p999Us()).isEqualTo(999);
    assertThat(r.maxUs()).isEqualTo(1000);
  }

  @Test
  void shouldFailARunOnlyAboveOnePercentErrors() {
    assertThat(
            BenchReport.of(ReportFixtures.SETUP, ReportFixtures.measurement(10, Optional.empty())))
        .extracting(BenchReport::tooManyErrors)
        .isEqualTo(false);
    assertThat(
            BenchReport.of(ReportFixtures.SETUP, ReportFixtures.measurement(11, Optional.empty())))
        .extracting(BenchReport::tooManyErrors)
        .isEqualTo(true);
  }

  @Test
  void shouldReportZerosWhenNothingWasMeasured() {
    Measurement nothing = new Measurement(0, 0, 0, new Histogram(3), Optional.empty(), 0);

    BenchReport r = BenchReport.of(ReportFixtures.SETUP, nothing);

    assertThat(r.appendsPerSec()).isZero();
    assertThat(r.p50Us()).isZero();
    assertThat(r.maxUs()).isZero();
    assertThat(r.errorRatio()).isZero();
    assertThat(r.tooManyErrors()).isFalse();
  }

  @Test
  void shouldFailARunWhereEveryAppendFailed() {
    Measurement failed =
        new Measurement(0, 3, 1_000_000, new Histogram(3), Optional.of("UnknownColorException"), 0);

    assertThat(BenchReport.of(ReportFixtures.SETUP, failed).tooManyErrors()).isTrue();
  }
}
