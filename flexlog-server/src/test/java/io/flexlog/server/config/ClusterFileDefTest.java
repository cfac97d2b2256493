package io.flexlog.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.client.ClientConfigDef;
import io.flexlog.core.config.ConfigException;
import io.flexlog.core.config.ConfigKey;
import io.flexlog.replica.atomic.AtomicConfig;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.tier.TieredStorageConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The registries of the cluster file: one entry per key, the old defaults, the user's words. */
class ClusterFileDefTest {
  @TempDir Path dir;

  private ClusterFile file(String cluster, String node) throws Exception {
    Path path = dir.resolve("cluster.yaml");
    Files.writeString(
        path,
        "cluster:\n"
            + cluster
            + "  nodes:\n"
            + "    - {id: 0, kind: sequencer, host: 127.0.0.1, port: 7070}\n"
            + "    - {id: 1, kind: replica, host: 127.0.0.1, port: 7071}\n"
            + "  colors:\n"
            + "    - {id: 0, name: global, sequencer: 0}\n"
            + "  shards:\n"
            + "    - {id: 0, color: global, replicas: [1]}\n"
            + "node:\n"
            + node);
    return ClusterFile.load(path);
  }

  @Test
  void shouldDeclareEveryNodeKeyOfTheFileExactlyOnce() {
    assertThat(ClusterFileDef.NODE.keys())
        .extracting(ConfigKey::name)
        .containsExactly(
            "id",
            "data-dir",
            "engine",
            "durability",
            "pm-bytes",
            "chunk-bytes",
            "cache-bytes",
            "pm-high-watermark",
            "segment-bytes",
            "segment-dir",
            "read-hold-ms",
            "metrics-port",
            "atomic-result-retention-ms",
            "atomic-result-retention-count",
            "atomic-abandon-after-ms",
            "atomic-forward-retry-ms",
            "atomic-forward-retry-max-ms",
            "subscribe-heartbeat-ms",
            "idle-timeout-ms",
            "frame-timeout-ms",
            "max-frame-bytes",
            "max-connections");
    assertThat(ClusterFileDef.CLUSTER.keys())
        .extracting(ConfigKey::name)
        .containsExactly(
            "max-record-bytes",
            "metadata-timeout-ms",
            "metadata-snapshot-entries",
            "sequencer-failover",
            "role-heartbeat-ms",
            "role-lease-ms");
  }

  @Test
  void shouldGiveASettingTheSameWordsTypeAndDefaultInBothStyles() {
    Map<String, ConfigKey<?>> nodeByWords = new HashMap<>();
    for (ConfigKey<?> key : ClusterFileDef.NODE.keys()) {
      assertThat(key.name()).doesNotContain(".");
      nodeByWords.put(key.name().replace('-', '.'), key);
    }
    for (ConfigKey<?> key : ClusterFileDef.CLUSTER.keys()) {
      nodeByWords.put(key.name().replace('-', '.'), key);
    }
    for (ConfigKey<?> client : ClientConfigDef.DEF.keys()) {
      assertThat(client.name()).doesNotContain("-");
      ConfigKey<?> same = nodeByWords.get(client.name());
      if (same != null) {
        assertThat(same.type()).as(client.name()).isEqualTo(client.type());
        assertThat(same.defaultText()).as(client.name()).isEqualTo(client.defaultText());
      }
    }
  }

  @Test
  void shouldKeepTheDefaultsOfEveryKey() throws Exception {
    NodeSettings settings = file("", "  id: 1\n").nodeSettings(null, null, null, null, null);

    assertThat(settings.nodeId()).isEqualTo(1);
    assertThat(settings.dataDir()).isEqualTo(Path.of("flexlog-data/node-1"));
    assertThat(settings.engine()).isEqualTo("auto");
    assertThat(settings.durability()).isEqualTo(DurabilityMode.PROCESS);
    assertThat(settings.pmBytes()).isEqualTo(256L << 20);
    assertThat(settings.chunkBytes()).isEqualTo(16L << 20);
    assertThat(settings.readHold()).isEqualTo(Duration.ofMillis(1));
    assertThat(settings.metricsPort()).isZero();
    assertThat(settings.tieredStorage())
        .isEqualTo(TieredStorageConfig.defaults(Path.of("flexlog-data/node-1/segments")));
    assertThat(settings.atomic()).isEqualTo(AtomicConfig.defaults());
    assertThat(settings.subscribeHeartbeat()).isEqualTo(Duration.ofSeconds(1));
    assertThat(file("", "  id: 1\n").maxRecordBytes()).isEqualTo(1 << 20);
  }

  @Test
  void shouldReadEveryKeyAndLetFlagsOverrideThem() throws Exception {
    ClusterFile file =
        file(
            "  max-record-bytes: 64KiB\n",
            "  id: 1\n"
                + "  data-dir: d1\n"
                + "  engine: MAPPED\n"
                + "  durability: fsync\n"
                + "  pm-bytes: 8MiB\n"
                + "  chunk-bytes: 2MiB\n"
                + "  read-hold-ms: 5\n"
                + "  metrics-port: 9100\n");
    NodeSettings settings = file.nodeSettings(null, null, null, null, null);
    assertThat(file.maxRecordBytes()).isEqualTo(64 << 10);
    assertThat(settings.dataDir()).isEqualTo(Path.of("d1"));
    assertThat(settings.engine()).isEqualTo("mapped");
    assertThat(settings.durability()).isEqualTo(DurabilityMode.FSYNC);
    assertThat(settings.pmBytes()).isEqualTo(8L << 20);
    assertThat(settings.chunkBytes()).isEqualTo(2L << 20);
    assertThat(settings.readHold()).isEqualTo(Duration.ofMillis(5));
    assertThat(settings.metricsPort()).isEqualTo(9100);

    NodeSettings overridden = file.nodeSettings(1, dir.resolve("other"), "llpl", "pmem", "16MiB");
    assertThat(overridden.dataDir()).isEqualTo(dir.resolve("other"));
    assertThat(overridden.engine()).isEqualTo("llpl");
    assertThat(overridden.durability()).isEqualTo(DurabilityMode.PMEM);
    assertThat(overridden.pmBytes()).isEqualTo(16L << 20);
  }

  @Test
  void shouldNameTheKeyOrFlagTheUserWrote() throws Exception {
    ClusterFile file = file("", "  id: 1\n");
    assertThatThrownBy(() -> file.nodeSettings(null, null, null, null, "lots"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("--pm-bytes: 'lots' is not a number of bytes");
    assertThatThrownBy(() -> file.nodeSettings(null, null, "pmdk", null, null))
        .hasMessage("--engine must be one of auto, llpl, mapped, got pmdk");
    assertThatThrownBy(() -> file.nodeSettings(null, null, null, "disk", null))
        .hasMessage("--durability must be one of pmem, process, fsync, got disk");
    assertThatThrownBy(
            () ->
                file("", "  id: 1\n  read-hold-ms: 0\n").nodeSettings(null, null, null, null, null))
        .hasMessage("read-hold-ms must be > 0, got 0");
    assertThatThrownBy(
            () ->
                file("", "  id: 1\n  metrics-port: 70000\n")
                    .nodeSettings(null, null, null, null, null))
        .hasMessage("metrics-port must be in [0, 65535], got 70000");
    assertThatThrownBy(
            () ->
                file(
                        "",
                        "  id: 1\n  atomic-forward-retry-ms: 500\n  atomic-forward-retry-max-ms: 100\n")
                    .nodeSettings(null, null, null, null, null))
        .hasMessage(
            "atomic-forward-retry-max-ms must be at least atomic-forward-retry-ms (500), got 100");
    assertThatThrownBy(() -> file("  max-record-bytes: 0\n", ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageEndingWith(": max-record-bytes must be in [1, 2147483647], got 0");
    assertThatThrownBy(() -> file("", "  data-dir: d\n").nodeSettings(null, null, null, null, null))
        .hasMessage("node.id (or --node-id) is missing");
  }

  @Test
  void shouldReadTheExampleClusterFileForEveryNode() throws Exception {
    ClusterFile file = ClusterFile.load(Path.of("..", "examples", "tree-cluster.yaml"));
    for (int id = 0; id <= 8; id++) {
      NodeSettings settings = file.nodeSettings(id, dir.resolve("n" + id), null, null, null);
      assertThat(settings.pmBytes()).isEqualTo(256L << 20);
      assertThat(settings.engine()).isEqualTo("auto");
      assertThat(settings.durability()).isEqualTo(DurabilityMode.PROCESS);
    }
    assertThat(file.maxRecordBytes()).isEqualTo(1 << 20);
    assertThat(file.quorum().orElseThrow().nodeIds()).containsExactly(0, 1, 2);
    assertThat(file.failover()).isPresent();
  }
}
