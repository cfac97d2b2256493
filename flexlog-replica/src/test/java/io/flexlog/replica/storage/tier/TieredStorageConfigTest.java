package io.flexlog.replica.storage.tier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.error.InvalidArgumentException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class TieredStorageConfigTest {
  private final TieredStorageConfig defaults = TieredStorageConfig.defaults(Path.of("segments"));

  @Test
  void shouldDefaultToA64MiBCacheThreeQuartersWatermarkAnd64MiBSegments() {
    assertThat(defaults.cacheBytes()).isEqualTo(64L << 20);
    assertThat(defaults.pmHighWatermark()).isEqualTo(0.75);
    assertThat(defaults.segmentBytes()).isEqualTo(64L << 20);
    assertThat(defaults.segmentDir()).isEqualTo(Path.of("segments"));
    assertThat(defaults.withCacheBytes(0).cacheBytes()).isZero();
    assertThat(defaults.withPmHighWatermark(1).pmHighWatermark()).isEqualTo(1);
    assertThat(defaults.withSegmentBytes(1L << 30).segmentBytes()).isEqualTo(1L << 30);
  }

  @Test
  void shouldNameTheKeyOfABadCacheBudget() {
    assertThatThrownBy(() -> defaults.withCacheBytes(1000))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("cache.bytes must be 0 (no cache) or at least 65536 bytes, got 1000");
    assertThatThrownBy(() -> defaults.withCacheBytes(-1)).hasMessageContaining("cache.bytes");
  }

  @Test
  void shouldNameTheKeyOfAWatermarkOutsideZeroToOne() {
    for (double bad : new double[] {0, -0.5, 1.01, Double.NaN}) {
      assertThatThrownBy(() -> defaults.withPmHighWatermark(bad))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessageStartingWith("pm.high-watermark must be a fraction in (0, 1], got ");
    }
  }

  @Test
  void shouldNameTheKeyOfABadSegmentSizeOrMissingDirectory() {
    assertThatThrownBy(() -> defaults.withSegmentBytes(4096))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("segment.bytes must be between 65536 and 1073741824 bytes, got 4096");
    assertThatThrownBy(() -> defaults.withSegmentBytes((1L << 30) + 1))
        .hasMessageContaining("segment.bytes");
    assertThatThrownBy(() -> new TieredStorageConfig(0, 0.5, null, 1 << 20))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("segment.dir is required");
  }
}
