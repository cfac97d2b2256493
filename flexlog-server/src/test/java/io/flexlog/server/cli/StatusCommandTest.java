package io.flexlog.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.FlexLog;
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
                + " lag=0; replica 2 tail="
                + last
                + " lag=0; replica 3 tail="
                + last
                + " lag=0");

    cluster.stopReplica(2);
    CliRun json = CliRun.run("status", "--json", "--bootstrap", cluster.bootstrap());
    assertThat(json.code()).isEqualTo(1);
    assertThat(json.out())
        .startsWith("{\"topology_version\":1,\"nodes\":[")
        .contains(
            "{\"id\":2,\"kind\":\"replica\",\"address\":\"127.0.0.1:"
                + (port + 2)
                + "\",\"up\":false,\"epoch\":null,\"problem\":\"Connection refused\"}")
        .contains("\"name\":\"global\",\"parent\":null,\"sequencer\":0")
        .contains("\"tail\":" + last)
        .contains("{\"node\":2,\"tail\":null,\"lag\":null}");
  }
}
