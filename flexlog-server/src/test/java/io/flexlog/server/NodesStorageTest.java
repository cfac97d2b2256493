package io.flexlog.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.replica.storage.tier.TieredLogStorage;
import io.flexlog.server.config.NodeSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodesStorageTest {
  @TempDir Path dir;

  @Test
  void shouldOpenTheTieredEngineAndPrintItsTiersInOneLine() {
    NodeSettings settings =
        new NodeSettings(
            3,
            dir,
            StorageEngines.MAPPED,
            DurabilityMode.PROCESS,
            8L << 20,
            1L << 20,
            Duration.ofMillis(1),
            0,
            2L << 20,
            0.6,
            null,
            4L << 20);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();

    try (LogStorage storage =
        Nodes.openStorage(settings, registry, new PrintStream(out, true, StandardCharsets.UTF_8))) {
      assertThat(storage).isInstanceOf(TieredLogStorage.class);
      assertThat(((TieredLogStorage) storage).segmentDir()).isEqualTo(dir.resolve("segments"));
      assertThat(registry.get("flexlog.storage.pm.capacity.bytes").tag("node", "3").gauge().value())
          .isEqualTo(8L << 20);
    }

    assertThat(out.toString(StandardCharsets.UTF_8))
        .startsWith("replica 3 storage: engine=mapped durability=process pm-bytes=8MiB")
        .contains("cache-bytes=2MiB", "pm-high-watermark=0.6", "segment-bytes=4MiB")
        .contains("segments=" + dir.resolve("segments").toAbsolutePath());
  }

  private NodeSettings settings(String engine, long pmBytes) {
    return new NodeSettings(
        3, dir, engine, DurabilityMode.PROCESS, pmBytes, 1L << 20, Duration.ofMillis(1), 0);
  }

  private String open(NodeSettings settings) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (LogStorage storage =
        Nodes.openStorage(settings, new PrintStream(out, true, StandardCharsets.UTF_8))) {
      return out.toString(StandardCharsets.UTF_8);
    }
  }

  @Test
  void shouldSayNothingWhenTheLogHoldsExactlyPmBytesAndNameTheDifferenceOtherwise() {
    assertThat(open(settings(StorageEngines.MAPPED, 8L << 20))).doesNotContain("notice:");

    assertThat(open(settings(StorageEngines.MAPPED, 4L << 20)))
        .contains(
            "notice: the PM log holds 8MiB (8 chunks of 1MiB), more than pm-bytes=4MiB: the log"
                + " was created larger and keeps its chunks");
  }

  @Test
  void shouldNameTheLlplMetadataWhenTheHeapHoldsLessThanPmBytes() {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        StorageEngines.LLPL.equals(StorageEngines.defaultEngine()), "llpl is not available here");
    String banner = open(settings(StorageEngines.LLPL, 16L << 20));
    assertThat(banner)
        .containsPattern(
            "notice: the PM log holds \\S+ \\(\\d+ chunks of 1MiB\\), less than"
                + " pm-bytes=16MiB: llpl's heap metadata takes the rest");
  }
}
