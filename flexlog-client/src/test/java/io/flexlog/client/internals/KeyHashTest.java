package io.flexlog.client.internals;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class KeyHashTest {
  @Test
  void shouldBeFnv1aSoThatEveryClientPicksTheSameShardForAKey() {
    // Reference values of 32-bit FNV-1a.
    assertThat(KeyHash.of(new byte[0])).isEqualTo(0x811C9DC5);
    assertThat(KeyHash.of("a".getBytes(StandardCharsets.US_ASCII))).isEqualTo(0xE40C292C);
    assertThat(KeyHash.of("foobar".getBytes(StandardCharsets.US_ASCII))).isEqualTo(0xBF9CF968);
  }
}
