package io.flexlog.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.core.error.FlexLogTimeoutException;
import io.flexlog.core.testing.FreePorts;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.server.dev.DevCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An append that times out says which step did not answer: a replica, or the sequencer. */
class TimeoutCauseEndToEndTest {
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

  private FlexLog connect() {
    return FlexLog.connect(
        FlexLogConfig.builder()
            .bootstrapServers(cluster.bootstrap())
            .deliveryTimeout(Duration.ofSeconds(2))
            .requestTimeout(Duration.ofMillis(500))
            .build());
  }

  @Test
  void shouldNameTheReplicaThatRefusesConnections() {
    try (FlexLog log = connect()) {
      log.append("global", new byte[] {1});
      cluster.stopReplica(2);
      assertThatThrownBy(() -> log.append("global", new byte[] {2}))
          .isInstanceOf(FlexLogTimeoutException.class)
          .hasMessageContaining("replica node 1 acknowledged")
          .hasMessageContaining(
              "replica node 2 at 127.0.0.1:" + (port + 2) + " cannot connect: Connection refused")
          .hasMessageContaining("replica node 3 acknowledged")
          .hasMessageNotContaining("sequencer");
    }
  }

  @Test
  void shouldNameTheSequencerWhenEveryReplicaIsConnectedButNoneAcknowledges() {
    try (FlexLog log = connect()) {
      log.append("global", new byte[] {1});
      cluster.sequencers().get(0).close();
      assertThatThrownBy(() -> log.append("global", new byte[] {2}))
          .isInstanceOf(FlexLogTimeoutException.class)
          .hasMessageContaining("replica node 1 at 127.0.0.1:" + (port + 1) + " connected")
          .hasMessageContaining("did not get its SN from sequencer node 0 at 127.0.0.1:" + port);
    }
    assertThat(cluster.replicas()).hasSize(3);
  }
}
