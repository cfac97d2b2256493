package io.flexlog.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.replica.atomic.AtomicConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The atomic-append and subscription keys of a cluster file's {@code node:} section. */
class AtomicSettingsTest {
  @TempDir Path dir;

  private NodeSettings settings(String node) throws Exception {
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
    return ClusterFile.load(path).nodeSettings(null, null, null, null, null);
  }

  @Test
  void shouldReadTheAtomicKeys() throws Exception {
    AtomicConfig atomic =
        settings(
                "  atomic-result-retention-ms: 5000\n"
                    + "  atomic-result-retention-count: 7\n"
                    + "  atomic-abandon-after-ms: 3000\n"
                    + "  atomic-forward-retry-ms: 50\n"
                    + "  atomic-forward-retry-max-ms: 800\n")
            .atomic();

    assertThat(atomic.resultRetention()).isEqualTo(Duration.ofSeconds(5));
    assertThat(atomic.resultRetentionCount()).isEqualTo(7);
    assertThat(atomic.abandonAfter()).isEqualTo(Duration.ofSeconds(3));
    assertThat(atomic.forwardRetry()).isEqualTo(Duration.ofMillis(50));
    assertThat(atomic.forwardRetryMax()).isEqualTo(Duration.ofMillis(800));
  }

  @Test
  void shouldDefaultTheAtomicKeys() throws Exception {
    assertThat(settings("").atomic()).isEqualTo(AtomicConfig.defaults());
    assertThat(AtomicConfig.defaults().resultRetention()).isEqualTo(Duration.ofMinutes(10));
    assertThat(AtomicConfig.defaults().abandonAfter()).isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void shouldNameTheKeyOfABadAtomicSetting() {
    assertThatThrownBy(() -> settings("  atomic-abandon-after-ms: 0\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("atomic-abandon-after-ms must be > 0");
    assertThatThrownBy(() -> settings("  atomic-result-retention-count: many\n"))
        .hasMessageContaining("node.atomic-result-retention-count: 'many' is not an integer");
    assertThatThrownBy(
            () ->
                settings(
                    "  atomic-forward-retry-ms: 500\n" + "  atomic-forward-retry-max-ms: 100\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be at least");
  }

  @Test
  void shouldReadTheSubscriptionHeartbeatKey() throws Exception {
    assertThat(settings("").subscribeHeartbeat()).isEqualTo(Duration.ofSeconds(1));
    NodeSettings quarter = settings("  subscribe-heartbeat-ms: 250\n");
    assertThat(quarter.subscribeHeartbeat()).isEqualTo(Duration.ofMillis(250));
    assertThat(quarter.withCacheBytes(1L << 20).subscribeHeartbeat())
        .isEqualTo(Duration.ofMillis(250));
    assertThatThrownBy(() -> settings("  subscribe-heartbeat-ms: 1\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("subscribe-heartbeat-ms must be at least 4, got 1");
  }
}
