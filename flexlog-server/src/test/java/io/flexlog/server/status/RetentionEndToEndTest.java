package io.flexlog.server.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.admin.v1.AddColorRequest;
import io.flexlog.admin.v1.AlterColorRequest;
import io.flexlog.client.FlexLog;
import io.flexlog.client.LogRecord;
import io.flexlog.core.error.TrimmedException;
import io.flexlog.core.model.Retention;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.core.net.Transport;
import io.flexlog.core.testing.FreePorts;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.server.control.AdminClient;
import io.flexlog.server.dev.DevCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.EventLoopGroup;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retention end to end (docs/architecture.md#retention) on the embedded cluster over real sockets,
 * in real time: a color with {@code retention.ms} of 1 s loses its records on every replica of its
 * shard at the same trim point, reads below the head answer trimmed and above it the records, and
 * {@code status} reports the retention and the head.
 */
class RetentionEndToEndTest {
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  @TempDir Path data;
  private DevCluster cluster;
  private final EventLoopGroup group = Transport.eventLoops("retention-test", 1);

  @BeforeEach
  void start() throws Exception {
    cluster =
        DevCluster.start(
            new DevCluster.Options(
                data,
                FreePorts.consecutive(4),
                StorageEngines.MAPPED,
                DurabilityMode.PROCESS,
                32L << 20),
            new SimpleMeterRegistry(),
            new PrintStream(new ByteArrayOutputStream()));
  }

  @AfterEach
  void stop() {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    if (cluster != null) {
      cluster.close();
    }
  }

  private static byte[] payload(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** Each replica's trim point of the color (-1 if it did not answer). */
  private List<Long> replicaTrimPoints(Topology topology, int colorId) {
    List<Long> points = new ArrayList<>();
    Shard shard = topology.shardsInSubtree(colorId).get(0);
    for (int node : shard.replicaNodeIds()) {
      var address = topology.node(node);
      NodeProbe.ColorAnswer answer =
          NodeProbe.probe(
                  group, address.host(), address.port(), List.of(colorId), Duration.ofSeconds(5))
              .colors()
              .get(colorId);
      points.add(answer == null || answer.error() != null ? -1 : answer.trimPoint());
    }
    return points;
  }

  @Test
  void shouldTrimExpiredRecordsOnEveryReplicaAtOnePointAndServeTheRest() throws Exception {
    try (AdminClient admin = AdminClient.connect(cluster.adminAddress(), Duration.ofSeconds(10));
        FlexLog log = FlexLog.connect(cluster.bootstrap())) {
      admin.addColor(
          AddColorRequest.newBuilder()
              .setName("short")
              .setParent("global")
              .setShards(1)
              .setReplicationFactor(3)
              .setRetentionMs(1000)
              .build());
      long[] expired = new long[5];
      for (int i = 0; i < expired.length; i++) {
        expired[i] = log.append("short", payload("old-" + i));
      }
      Topology topology = admin.topology();
      int colorId = topology.color("short").orElseThrow().id();

      // Wait for the condition, not for a time: every replica has trimmed all five.
      long deadline = System.nanoTime() + PATIENCE.toNanos();
      List<Long> points = replicaTrimPoints(topology, colorId);
      while (!points.stream().allMatch(p -> p >= expired[4]) && System.nanoTime() < deadline) {
        Thread.sleep(50);
        points = replicaTrimPoints(topology, colorId);
      }
      assertThat(points).as("each replica's trim point").containsOnly(expired[4]);
      assertThat(log.tail("short").head()).isEqualTo(expired[4] + 1);

      // Keep everything from now on, so the next records stay while the test reads them.
      admin.alterColor(
          AlterColorRequest.newBuilder().setName("short").setRetentionMs(Retention.KEEP).build());
      long[] kept = new long[3];
      for (int i = 0; i < kept.length; i++) {
        kept[i] = log.append("short", payload("new-" + i));
      }

      for (long sn : expired) {
        assertThatThrownBy(() -> log.read("short", sn)).isInstanceOf(TrimmedException.class);
      }
      for (int i = 0; i < kept.length; i++) {
        byte[] expected = payload("new-" + i);
        assertThat(log.read("short", kept[i]).map(LogRecord::payload))
            .hasValueSatisfying(p -> assertThat(p).isEqualTo(expected));
      }

      // The retention status shows is the one the replicas apply: wait until they have the change.
      ClusterStatus status = ClusterStatus.gather(log.topology(), Duration.ofSeconds(5));
      while (!StatusFormat.text(status).contains("retention.ms=-1")
          && System.nanoTime() < deadline + PATIENCE.toNanos()) {
        Thread.sleep(50);
        status = ClusterStatus.gather(log.topology(), Duration.ofSeconds(5));
      }
      assertThat(StatusFormat.text(status))
          .contains("short parent=global sequencer=0 head=" + (expired[4] + 1))
          .contains("records=" + kept.length)
          .contains("retention.ms=-1 retention.bytes=-1");
      assertThat(StatusFormat.json(status))
          .contains("\"head\":" + (expired[4] + 1))
          .contains("\"retention_ms\":-1,\"retention_bytes\":-1");
    }
  }
}
