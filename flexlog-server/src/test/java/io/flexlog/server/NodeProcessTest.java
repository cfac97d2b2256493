package io.flexlog.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.admin.v1.AddColorRequest;
import io.flexlog.admin.v1.AddColorResponse;
import io.flexlog.client.ClusterDescription;
import io.flexlog.client.CreateColorResult;
import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogAdmin;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.LogRecord;
import io.flexlog.client.NewColor;
import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.core.testing.FreePorts;
import io.flexlog.server.config.ClusterFile;
import io.flexlog.server.control.AdminClient;
import io.flexlog.server.control.ClusterController;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Node processes as a multi-process cluster runs them, in one JVM: the root sequencer node holds
 * the metadata and serves the admin service; the replica nodes watch it over gRPC.
 */
class NodeProcessTest {
  private static final int REPLICAS = 3;

  @TempDir Path dir;
  private ClusterFile file;
  private NodeProcess root;
  private final NodeProcess[] replicas = new NodeProcess[REPLICAS + 1];
  private final List<AutoCloseable> clients = new ArrayList<>();

  @BeforeEach
  void writeClusterFile() throws Exception {
    int port = FreePorts.consecutive(REPLICAS + 2);
    StringBuilder yaml = new StringBuilder("cluster:\n  nodes:\n");
    yaml.append(
        String.format(
            "    - {id: 0, kind: sequencer, host: 127.0.0.1, port: %d, admin-port: %d}%n",
            port, port + REPLICAS + 1));
    for (int i = 1; i <= REPLICAS; i++) {
      yaml.append(
          String.format("    - {id: %d, kind: replica, host: 127.0.0.1, port: %d}%n", i, port + i));
    }
    yaml.append("  colors:\n    - {id: 0, name: global, sequencer: 0}\n");
    yaml.append("  shards:\n    - {id: 0, color: global, replicas: [1, 2, 3]}\n");
    Path config = dir.resolve("cluster.yaml");
    Files.writeString(config, yaml);
    file = ClusterFile.load(config);
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = clients.size() - 1; i >= 0; i--) {
      clients.get(i).close();
    }
    for (NodeProcess replica : replicas) {
      if (replica != null) {
        replica.close();
      }
    }
    if (root != null) {
      root.close();
    }
  }

  private void startRoot() throws Exception {
    root =
        NodeProcess.startSequencer(
            file,
            file.nodeSettings(0, dir.resolve("node-0"), null, null, null),
            new SimpleMeterRegistry());
  }

  private void startReplica(int id) throws Exception {
    replicas[id] =
        NodeProcess.startReplica(
            file,
            file.nodeSettings(id, dir.resolve("node-" + id), "mapped", "process", "32MiB"),
            new SimpleMeterRegistry(),
            new PrintStream(new ByteArrayOutputStream()));
  }

  private void awaitReplicasWatching() throws InterruptedException {
    ClusterController controller = root.controller().orElseThrow();
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    for (int id = 1; id <= REPLICAS; id++) {
      while (controller.watchCount(id) == 0) {
        assertThat(System.nanoTime()).as("replica %d watching", id).isLessThan(deadline);
        Thread.sleep(10);
      }
    }
  }

  private FlexLog client() {
    FlexLog log =
        FlexLog.connect(
            FlexLogConfig.builder()
                .bootstrapServers(file.topology().node(0).hostPort())
                .requestTimeout(Duration.ofMillis(500))
                .deliveryTimeout(Duration.ofSeconds(20))
                .readTimeout(Duration.ofSeconds(5))
                .build());
    clients.add(log);
    return log;
  }

  private AddColorResponse addColor(String name, int shards) {
    try (AdminClient admin =
        AdminClient.connect(root.adminAddress().orElseThrow(), Duration.ofSeconds(10))) {
      return admin.addColor(
          AddColorRequest.newBuilder()
              .setName(name)
              .setParent("global")
              .setShards(shards)
              .setReplicationFactor(REPLICAS)
              .build());
    }
  }

  private static Map<Long, String> append(FlexLog log, String color, int count) {
    Map<Long, String> written = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      String value = color + "-" + i;
      written.put(log.append(color, value.getBytes(StandardCharsets.UTF_8)), value);
    }
    return written;
  }

  private static void assertReadable(FlexLog log, String color, Map<Long, String> written) {
    written.forEach(
        (sn, value) ->
            assertThat(log.read(color, sn).map(LogRecord::payload))
                .contains(value.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void shouldDistributeANewColorToWatchingNodesAndKeepItAcrossRestarts() throws Exception {
    startRoot();
    for (int id = 1; id <= REPLICAS; id++) {
      startReplica(id);
    }
    awaitReplicasWatching();
    FlexLog log = client();

    AddColorResponse orders = addColor("orders", 2);

    // Every replica applied version 2 over its watch before AddColor returned.
    assertThat(orders.getUnacknowledgedNodeIdsList()).isEmpty();
    for (int id = 1; id <= REPLICAS; id++) {
      assertThat(replicas[id].topologyVersion()).isEqualTo(2);
    }
    Map<Long, String> written = append(log, "orders", 10);
    assertReadable(log, "orders", written);

    // The root restarts from its stored metadata, which wins over the cluster file.
    root.close();
    root = null;
    startRoot();
    assertThat(root.topologyVersion()).isEqualTo(2);
    assertThat(root.controller().orElseThrow().topology().color("orders")).isPresent();
    written.putAll(append(log, "orders", 5));
    assertReadable(client(), "orders", written);

    // The watchers found the restarted admin service again.
    awaitReplicasWatching();
    AddColorResponse audit = addColor("audit", 1);
    assertThat(audit.getUnacknowledgedNodeIdsList()).isEmpty();
    assertReadable(log, "audit", append(log, "audit", 3));

    // A replica restarted on the same cluster file recovers the shards it got since, from the
    // topology cached in its data directory: appends to 'orders' need all three replicas.
    replicas[1].close();
    replicas[1] = null;
    startReplica(1);
    assertThat(replicas[1].topologyVersion()).isEqualTo(3);
    written.putAll(append(log, "orders", 5));
    assertReadable(log, "orders", written);
  }

  @Test
  void shouldRelayFlexLogAdminThroughAWatchingReplicaNode() throws Exception {
    startRoot();
    for (int id = 1; id <= REPLICAS; id++) {
      startReplica(id);
    }
    awaitReplicasWatching();

    try (FlexLogAdmin admin = FlexLogAdmin.create(file.topology().node(2).hostPort())) {
      CreateColorResult created = admin.createColor(NewColor.of("relayed", "global").shards(2));
      ClusterDescription cluster = admin.describeCluster();

      assertThat(created.created()).isTrue();
      assertThat(created.unacknowledgedNodeIds()).isEmpty();
      assertThat(cluster.topology()).isEqualTo(root.controller().orElseThrow().topology());
      assertThat(cluster.adminServices())
          .extracting(ClusterDescription.AdminService::toString)
          .containsExactly(root.adminAddress().orElseThrow());
    }
    assertReadable(client(), "relayed", append(client(), "relayed", 3));
  }

  @Test
  void shouldRefuseFlexLogAdminOnAClusterWithoutAnAdminService() throws Exception {
    Path staticFile = dir.resolve("static.yaml");
    Files.writeString(
        staticFile,
        Files.readString(dir.resolve("cluster.yaml")).replaceAll(", admin-port: \\d+", ""));
    file = ClusterFile.load(staticFile);
    startRoot();

    try (FlexLogAdmin admin = FlexLogAdmin.create(file.topology().node(0).hostPort())) {
      assertThatThrownBy(() -> admin.createColor(NewColor.of("orders", "global")))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessageContaining("the cluster has no admin service");
    }
  }
}
