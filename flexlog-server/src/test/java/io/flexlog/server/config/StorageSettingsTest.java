package io.flexlog.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.replica.storage.tier.TieredStorageConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The storage tier keys of a cluster file's {@code node:} section. */
class StorageSettingsTest {
  @TempDir Path dir;

  private ClusterFile file(String node) throws Exception {
    Path path = dir.resolve("cluster.yaml");
    Files.writeString(
        path,
        "cluster:\n"
            + "  nodes:\n"
            + "    - {id: 0, kind: sequencer, host: 127.0.0.1, port: 7070}\n"
            + "    - {id: 1, kind: replica, host: 127.0.0.1, port: 7071}\n"
            + "  colors:\n"
            + "    - {id: 0, name: global, sequencer: 0}\n"
            + "  shards:\n"
            + "    - {id: 0, color: global, replicas: [1]}\n"
            + "node:\n"
            + "  id: 1\n"
            + "  data-dir: "
            + dir.resolve("r1")
            + "\n"
            + node);
    return ClusterFile.load(path);
  }

  @Test
  void shouldReadTheTierKeys() throws Exception {
    NodeSettings settings =
        file("  pm-bytes: 64MiB\n"
                + "  cache-bytes: 8MiB\n"
                + "  pm-high-watermark: 0.6\n"
                + "  segment-bytes: 16MiB\n"
                + "  segment-dir: "
                + dir.resolve("ssd")
                + "\n")
            .nodeSettings(null, null, null, null, null);

    TieredStorageConfig tiers = settings.tieredStorage();
    assertThat(tiers.cacheBytes()).isEqualTo(8L << 20);
    assertThat(tiers.pmHighWatermark()).isEqualTo(0.6);
    assertThat(tiers.segmentBytes()).isEqualTo(16L << 20);
    assertThat(tiers.segmentDir()).isEqualTo(dir.resolve("ssd"));
  }

  @Test
  void shouldDefaultTheTiersWithSegmentsUnderTheDataDirectory() throws Exception {
    NodeSettings settings = file("").nodeSettings(null, null, null, null, null);

    TieredStorageConfig tiers = settings.tieredStorage();
    assertThat(tiers.cacheBytes()).isEqualTo(TieredStorageConfig.DEFAULT_CACHE_BYTES);
    assertThat(tiers.pmHighWatermark()).isEqualTo(TieredStorageConfig.DEFAULT_PM_HIGH_WATERMARK);
    assertThat(tiers.segmentBytes()).isEqualTo(TieredStorageConfig.DEFAULT_SEGMENT_BYTES);
    assertThat(tiers.segmentDir()).isEqualTo(dir.resolve("r1").resolve("segments"));
  }

  @Test
  void shouldNameTheKeyOfABadTierSetting() throws Exception {
    assertThatThrownBy(
            () -> file("  cache-bytes: 1000\n").nodeSettings(null, null, null, null, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cache-bytes must be 0 (no cache) or at least 65536 bytes, got 1000");
    assertThatThrownBy(
            () -> file("  pm-high-watermark: 1.5\n").nodeSettings(null, null, null, null, null))
        .hasMessage("pm-high-watermark must be a fraction in (0, 1], got 1.5");
    assertThatThrownBy(
            () -> file("  pm-high-watermark: lots\n").nodeSettings(null, null, null, null, null))
        .hasMessageContaining("node.pm-high-watermark: 'lots' is not a number");
    assertThatThrownBy(
            () -> file("  segment-bytes: 4KiB\n").nodeSettings(null, null, null, null, null))
        .hasMessageStartingWith("segment-bytes must be between");
    assertThatThrownBy(() -> file("  segment-size: 4KiB\n"))
        .hasMessageContaining("unknown key 'segment-size' in node");
  }
}
