package io.flexlog.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DataSizeTest {
  @Test
  void shouldParseBinaryUnitsAndPlainBytes() {
    assertThat(DataSize.parse("k", "4096")).isEqualTo(4096);
    assertThat(DataSize.parse("k", "64KiB")).isEqualTo(64L << 10);
    assertThat(DataSize.parse("k", "256 mb")).isEqualTo(256L << 20);
    assertThat(DataSize.parse("k", "1GiB")).isEqualTo(1L << 30);
    assertThat(DataSize.format(64L << 20)).isEqualTo("64MiB");
    assertThat(DataSize.format(1000)).isEqualTo("1000B");
  }

  @Test
  void shouldNameTheKeyOfABadSize() {
    assertThatThrownBy(() -> DataSize.parse("--log-bytes", "lots"))
        .hasMessageStartingWith("--log-bytes: 'lots' is not a size");
    assertThatThrownBy(() -> DataSize.parse("k", "99999999999TiB"))
        .hasMessageContaining("too large");
  }
}
