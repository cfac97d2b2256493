package io.flexlog.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProgressReporterTest {

  @Test
  void shouldShowElapsedPhaseAppendsAndCurrentThroughput() {
    assertThat(ProgressReporter.line(12_340_000_000L, true, 456_789, 98_765.43))
        .isEqualTo("[bench]    12.3 s  measuring       456789 appends       98765.4 appends/s");
    assertThat(ProgressReporter.line(5_000_000_000L, false, 10, 2.0)).contains("warm-up");
  }

  @Test
  void shouldCountTheUnitItIsGiven() {
    assertThat(ProgressReporter.line(1_000_000_000L, true, 42, 1_234.5, "SNs"))
        .isEqualTo("[bench]     1.0 s  measuring           42 SNs        1234.5 SNs/s");
  }
}
