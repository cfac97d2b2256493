package io.flexlog.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogAdmin;
import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.core.error.UnreachableException;
import io.flexlog.core.model.ReplicaDescription;
import io.flexlog.core.model.Retention;
import io.flexlog.core.model.Sn;
import io.flexlog.core.testing.FreePorts;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.server.dev.DevCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StatusCommandTest {
  @TempDir Path data;
  private DevCluster cluster;
  private int port;

  @BeforeEach
  void start() throws Exception {
    port = FreePorts.consecutive(4);
    cluster =
        DevCluster.start(
            new DevCluster.Options(
                data, port, StorageEngines.MAPPED, DurabilityMode.PROCESS, 16L << 20),
            new SimpleMeterRegistry(),
            new PrintStream(new ByteArrayOutputStream()));
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  @Test
  void shouldDescribeAReplicasTiersAndColorsThroughTheAdminApi() {
    long last;
    try (FlexLog log = FlexLog.connect(cluster.bootstrap());
        FlexLogAdmin admin = FlexLogAdmin.create(log)) {
      long first = log.append("global", new byte[100]);
      log.append("global", new byte[100]);
      last = log.append("global", new byte[100]);
      log.trim("global", first);

      ReplicaDescription replica = admin.describeReplica(3);
      assertThat(replica.nodeId()).isEqualTo(3);
      assertThat(replica.tiers().pmRecords()).isEqualTo(3);
      assertThat(replica.tiers().pmBytes()).isPositive();
      assertThat(replica.tiers().pmCapacityBytes()).isEqualTo(16L << 20);
      assertThat(replica.tiers().ssdRecords()).isZero();
      assertThat(replica.colors())
          .containsExactly(
              new ReplicaDescription.ColorState(0, first, last, 2, Retention.KEEP_ALL));

      assertThatThrownBy(() -> admin.describeReplica(0))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessageContaining("no replica node 0 (replica nodes: [1, 2, 3])");
      cluster.stopReplica(2);
      assertThatThrownBy(() -> admin.describeReplica(2))
          .isInstanceOf(UnreachableException.class)
          .hasMessageContaining("127.0.0.1:" + (port + 2))
          .hasMessageContaining("REPLICA_STATUS");
    }
  }

  @Test
  void shouldShowNodesColorsHeadTailAndReplicaLagThenADownReplica() {
    long first;
    long last;
    try (FlexLog log = FlexLog.connect(cluster.bootstrap())) {
      first = log.append("global", new byte[] {1});
      last = log.append("global", new byte[] {2});
      log.trim("global", first);
    }
    int epoch = Sn.epoch(last);

    CliRun text = CliRun.run("status", "--bootstrap", cluster.bootstrap());
    assertThat(text.code()).as(text.stderr()).isZero();
    assertThat(text.out())
        .contains("0   sequencer 127.0.0.1:" + port)
        .contains("up epoch=" + epoch)
        .contains("3   replica   127.0.0.1:" + (port + 3))
        .contains("global parent=- sequencer=0 head=" + (first + 1) + " tail=" + last)
        .contains(
            "shard 0: replica 1 tail="
                + last
                + " lag=0 records=1; replica 2 tail="
                + last
                + " lag=0 records=1; replica 3 tail="
                + last
                + " lag=0 records=1")
        // The trimmed record stays counted in PM until its chunk is freed.
        .containsPattern(
            "\\n      cache \\d+ records [^;]+; pm 2 records [^;]+ of 16\\.0 MiB; ssd 0")
        .contains(
            "global parent=- sequencer=0 head="
                + (first + 1)
                + " tail="
                + last
                + " retention.ms=-1 retention.bytes=-1");

    cluster.stopReplica(2);
    CliRun json = CliRun.run("status", "--json", "--bootstrap", cluster.bootstrap());
    assertThat(json.code()).isEqualTo(1);
    assertThat(json.out())
        .startsWith("{\"topology_version\":1,\"nodes\":[")
        .contains(
            "{\"id\":2,\"kind\":\"replica\",\"address\":\"127.0.0.1:"
                + (port + 2)
                + "\",\"up\":false,\"epoch\":null,\"problem\":\"Connection refused\",\"tiers\":null}")
        .containsPattern(
            "\\{\"id\":1,\"kind\":\"replica\",[^}]*\"tiers\":\\{\"cache_records\":\\d+,\"cache_bytes\":\\d+,"
                + "\"pm_records\":2,\"pm_bytes\":\\d+,\"pm_capacity_bytes\":16777216,"
                + "\"ssd_records\":0,\"ssd_bytes\":0,\"ssd_segments\":0}}")
        .contains("\"retention_ms\":-1,\"retention_bytes\":-1")
        .contains("\"name\":\"global\",\"parent\":null,\"sequencer\":0")
        .contains("\"tail\":" + last)
        .contains("{\"node\":2,\"tail\":null,\"lag\":null,\"records\":null}")
        .contains("{\"node\":1,\"tail\":" + last + ",\"lag\":0,\"records\":1}");
  }
}
