package io.flexlog.bench.report;

import io.flexlog.bench.load.Measurement;
import java.time.Duration;
import java.util.Optional;
import org.HdrHistogram.Histogram;

/** A measurement with known numbers: latencies 1..1000 us once each, 2 s, 1000-byte records. */
final class ReportFixtures {
  static final RunSetup SETUP =
      new RunSetup("127.0.0.1:7070", "global", 8, 4, 1000, Duration.ofMillis(1500));

  private ReportFixtures() {}

  static Measurement measurement(long errors, Optional<String> firstError) {
    Histogram latencies = new Histogram(3);
    for (int us = 1; us <= 1000; us++) {
      latencies.recordValue(us);
    }
    return new Measurement(1000, errors, 2_000_000_000L, latencies, firstError, 0);
  }

  static BenchReport report() {
    return BenchReport.of(SETUP, measurement(10, Optional.of("FlexLogTimeoutException: late")));
  }
}
