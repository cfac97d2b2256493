package io.flexlog.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.LogRecord;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.NodeAddress.Kind;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import io.flexlog.core.testing.FreePorts;
import io.flexlog.replica.node.ReplicaNode;
import io.flexlog.replica.replication.ReplicaLimits;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.sequencer.SequencerNode;
import io.flexlog.sequencer.ordering.SequencerMetrics;
import io.flexlog.server.config.NodeSettings;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Topology updates reaching a replica node and its sequencer node in either order. */
class TopologyUpdateOrderTest {
  @TempDir Path dir;
  private SequencerNode sequencer;
  private ReplicaNode replica;
  private FlexLog client;

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    if (replica != null) {
      replica.close();
    }
    if (sequencer != null) {
      sequencer.close();
    }
  }

  private static Topology topology(int port, boolean withLate) {
    List<NodeAddress> nodes =
        List.of(
            new NodeAddress(0, Kind.SEQUENCER, "127.0.0.1", port),
            new NodeAddress(1, Kind.REPLICA, "127.0.0.1", port + 1));
    Color global = new Color(Color.GLOBAL_ID, Color.GLOBAL, Color.NO_PARENT, 0);
    Shard shard0 = new Shard(0, global.id(), List.of(1));
    if (!withLate) {
      return new Topology(1, nodes, List.of(global), List.of(shard0));
    }
    return new Topology(
        2,
        nodes,
        List.of(global, new Color(1, "late", global.id(), 0)),
        List.of(shard0, new Shard(1, 1, List.of(1))));
  }

  private NodeSettings settings(int nodeId) {
    return new NodeSettings(
        nodeId,
        dir.resolve("node-" + nodeId),
        "mapped",
        DurabilityMode.PROCESS,
        16L << 20,
        4L << 20,
        ReplicaLimits.DEFAULT_READ_HOLD,
        0);
  }

  @Test
  void shouldCompleteAnAppendOnceTheSequencerLearnsTheShardTheReplicaLearnedFirst()
      throws Exception {
    int port = FreePorts.consecutive(2);
    Topology v1 = topology(port, false);
    Topology v2 = topology(port, true);
    SimpleMeterRegistry sequencerMeters = new SimpleMeterRegistry();
    sequencer = Nodes.startSequencer(v1, settings(0), 1 << 20, sequencerMeters);
    replica =
        Nodes.startReplica(
            v1,
            settings(1),
            1 << 20,
            new SimpleMeterRegistry(),
            new PrintStream(new ByteArrayOutputStream()));

    replica.updateTopology(v2);
    client =
        FlexLog.connect(
            FlexLogConfig.builder()
                .bootstrapServers("127.0.0.1:" + (port + 1)) // the replica serves version 2
                .requestTimeout(Duration.ofMillis(500))
                .deliveryTimeout(Duration.ofSeconds(20))
                .readTimeout(Duration.ofSeconds(5))
                .build());
    CompletableFuture<Long> append =
        client.appendAsync("late", "early bird".getBytes(StandardCharsets.UTF_8));
    // The event, not a time window: the sequencer has refused the replica's request for shard 1.
    awaitRefusal(sequencerMeters, "UNKNOWN_SHARD");
    assertThat(append).as("the sequencer does not know shard 1 yet").isNotDone();

    sequencer.updateTopology(v2);

    long sn = append.get(10, TimeUnit.SECONDS);
    assertThat(client.read("late", sn).map(LogRecord::payload))
        .contains("early bird".getBytes(StandardCharsets.UTF_8));
    assertThat(replica.sequencerLinks()).containsExactly(0);
  }

  /**
   * A failover reaches the replica before the new leader: the replica sends its order request to
   * node 2, which does not lead {@code global} yet and refuses it with UNKNOWN_COLOR; once node 2
   * applies the topology that gave it the role, the request is sent again and answered in the new
   * role epoch.
   */
  @Test
  void shouldCompleteAnAppendOnceTheNewRoleLeaderLearnsTheRoleTheReplicaLearnedFirst()
      throws Exception {
    int port = FreePorts.consecutive(3);
    List<NodeAddress> nodes =
        List.of(
            new NodeAddress(0, Kind.SEQUENCER, "127.0.0.1", port),
            new NodeAddress(1, Kind.REPLICA, "127.0.0.1", port + 1),
            new NodeAddress(2, Kind.SEQUENCER, "127.0.0.1", port + 2));
    Shard shard0 = new Shard(0, Color.GLOBAL_ID, List.of(1));
    Topology v1 =
        new Topology(
            1,
            nodes,
            List.of(new Color(Color.GLOBAL_ID, Color.GLOBAL, Color.NO_PARENT, 0, 1)),
            List.of(shard0));
    Topology v2 =
        new Topology(
            2,
            nodes,
            List.of(new Color(Color.GLOBAL_ID, Color.GLOBAL, Color.NO_PARENT, 2, 5)),
            List.of(shard0));
    SimpleMeterRegistry newLeaderMeters = new SimpleMeterRegistry();
    sequencer = Nodes.startSequencer(v1, settings(0), 1 << 20, new SimpleMeterRegistry());
    try (SequencerNode newLeader =
        Nodes.startSequencer(v1, settings(2), 1 << 20, newLeaderMeters)) {
      replica =
          Nodes.startReplica(
              v1,
              settings(1),
              1 << 20,
              new SimpleMeterRegistry(),
              new PrintStream(new ByteArrayOutputStream()));
      client =
          FlexLog.connect(
              FlexLogConfig.builder()
                  .bootstrapServers("127.0.0.1:" + (port + 1))
                  .requestTimeout(Duration.ofMillis(500))
                  .deliveryTimeout(Duration.ofSeconds(20))
                  .readTimeout(Duration.ofSeconds(5))
                  .build());
      long before = client.append(Color.GLOBAL, "before".getBytes(StandardCharsets.UTF_8));

      replica.updateTopology(v2);
      CompletableFuture<Long> append =
          client.appendAsync(Color.GLOBAL, "after".getBytes(StandardCharsets.UTF_8));
      awaitRefusal(newLeaderMeters, "UNKNOWN_COLOR");
      assertThat(append).as("node 2 does not lead global yet").isNotDone();

      newLeader.updateTopology(v2);

      long sn = append.get(10, TimeUnit.SECONDS);
      assertThat(Sn.epoch(sn)).as("an SN of the new role epoch").isGreaterThanOrEqualTo(5);
      assertThat(sn).isGreaterThan(before);
      assertThat(client.read(Color.GLOBAL, sn).map(LogRecord::payload))
          .contains("after".getBytes(StandardCharsets.UTF_8));
    }
  }

  private static void awaitRefusal(SimpleMeterRegistry meters, String code) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      Counter refused =
          meters.find(SequencerMetrics.REFUSED).tag(SequencerMetrics.CODE_TAG, code).counter();
      if (refused != null && refused.count() >= 1) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("the sequencer refused no request with " + code + " in 10 s");
      }
      Thread.sleep(5);
    }
  }
}
