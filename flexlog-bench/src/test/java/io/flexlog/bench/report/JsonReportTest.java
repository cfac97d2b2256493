package io.flexlog.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class JsonReportTest {

  @Test
  void shouldWriteTheSameNumbersAsOneJsonObject() {
    assertThat(JsonReport.format(ReportFixtures.report()))
        .isEqualTo(
            "{\"bootstrap\":\"127.0.0.1:7070\",\"color\":\"global\",\"clients\":8,"
                + "\"connections\":4,\"recordBytes\":1000,\"warmupSeconds\":1.500,"
                + "\"durationSeconds\":2.000,\"appends\":1000,\"errors\":10,"
                + "\"errorRatio\":0.010,\"appendsPerSec\":500.000,\"megabytesPerSec\":0.500,"
                + "\"latencyUs\":{\"p50\":500,\"p99\":990,\"p999\":999,\"max\":1000},"
                + "\"firstError\":\"FlexLogTimeoutException: late\"}");
  }

  @Test
  void shouldWriteNullWithoutErrors() {
    BenchReport clean =
        BenchReport.of(ReportFixtures.SETUP, ReportFixtures.measurement(0, Optional.empty()));

    assertThat(JsonReport.format(clean)).endsWith(",\"firstError\":null}");
  }

  @Test
  void shouldEscapeQuotesBackslashesAndControlCharacters() {
    BenchReport failed =
        BenchReport.of(
            ReportFixtures.SETUP,
            ReportFixtures.measurement(10, Optional.of("a\"b\\c\nd\te\u0001f é")));

    assertThat(JsonReport.format(failed))
        .endsWith(",\"firstError\":\"a\\\"b\\\\c\\nd\\te\\u0001f é\"}");
  }
}
