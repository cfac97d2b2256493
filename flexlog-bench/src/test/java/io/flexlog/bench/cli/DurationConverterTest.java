package io.flexlog.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine.TypeConversionException;

class DurationConverterTest {

  @Test
  void shouldParseEveryUnit() {
    assertThat(DurationConverter.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(DurationConverter.parse("10s")).isEqualTo(Duration.ofSeconds(10));
    assertThat(DurationConverter.parse("2m")).isEqualTo(Duration.ofMinutes(2));
    assertThat(DurationConverter.parse("1h")).isEqualTo(Duration.ofHours(1));
    assertThat(DurationConverter.parse("0s")).isEqualTo(Duration.ZERO);
    assertThat(DurationConverter.parse(" 3s ")).isEqualTo(Duration.ofSeconds(3));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "10", "s", "-1s", "1.5s", "10x", "10 s", "10S", "1d", "ms10"})
  void shouldRejectMalformedDurationsNamingTheFormat(String value) {
    assertThatThrownBy(() -> DurationConverter.parse(value))
        .isInstanceOf(TypeConversionException.class)
        .hasMessageContaining("'" + value + "' is not a duration")
        .hasMessageContaining("for example 500ms, 10s or 2m");
  }

  @Test
  void shouldRejectDurationsTooLongForJava() {
    assertThatThrownBy(() -> DurationConverter.parse("999999999999999999h"))
        .isInstanceOf(TypeConversionException.class)
        .hasMessageContaining("too long");
  }
}
