package io.flexlog.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.admin.v1.AddColorRequest;
import io.flexlog.admin.v1.AddColorResponse;
import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.LogRecord;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.core.testing.FreePorts;
import io.flexlog.replica.node.ReplicaNode;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.server.control.AdminClient;
import io.flexlog.server.dev.DevCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The control plane of the embedded cluster end to end: AddColor over gRPC, then appends and reads
 * with the Java client, restarts, and the tree layout.
 */
class DevClusterControlTest {
  @TempDir Path data;
  private DevCluster cluster;
  private final List<AutoCloseable> resources = new ArrayList<>();

  private DevCluster start(DevCluster.Layout layout) throws Exception {
    return start(layout, FreePorts.consecutive(DevCluster.nodeCount(layout)));
  }

  private DevCluster start(DevCluster.Layout layout, int port) throws Exception {
    cluster =
        DevCluster.start(
            new DevCluster.Options(
                data, port, StorageEngines.MAPPED, DurabilityMode.PROCESS, 32L << 20, layout, 0),
            new SimpleMeterRegistry(),
            new PrintStream(new ByteArrayOutputStream()));
    return cluster;
  }

  private FlexLog client(String bootstrap) {
    FlexLog log =
        FlexLog.connect(
            FlexLogConfig.builder()
                .bootstrapServers(bootstrap)
                .requestTimeout(Duration.ofMillis(500))
                .deliveryTimeout(Duration.ofSeconds(20))
                .readTimeout(Duration.ofSeconds(5))
                .build());
    resources.add(log);
    return log;
  }

  private AdminClient admin() {
    AdminClient admin = AdminClient.connect(cluster.adminAddress(), Duration.ofSeconds(10));
    resources.add(admin);
    return admin;
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = resources.size() - 1; i >= 0; i--) {
      resources.get(i).close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static AddColorRequest request(String name, String parent, int shards) {
    return AddColorRequest.newBuilder()
        .setName(name)
        .setParent(parent)
        .setShards(shards)
        .setReplicationFactor(3)
        .build();
  }

  /** Appends {@code count} records and checks each reads back; returns SN -> payload. */
  private static Map<Long, String> appendAndRead(FlexLog log, String color, int count) {
    Map<Long, String> written = new LinkedHashMap<>();
    long previous = 0;
    for (int i = 0; i < count; i++) {
      String value = color + "-" + i;
      long sn = log.append(color, bytes(value));
      assertThat(sn).isGreaterThan(previous);
      previous = sn;
      written.put(sn, value);
    }
    written.forEach(
        (sn, value) ->
            assertThat(log.read(color, sn).map(LogRecord::payload)).contains(bytes(value)));
    return written;
  }

  @Test
  void shouldAppendAndReadANewColorWithoutRestartingAnything() throws Exception {
    start(DevCluster.Layout.FLAT);
    FlexLog log = client(cluster.bootstrap()); // connected before the color exists
    log.append("global", bytes("before"));

    AddColorResponse response = admin().addColor(request("orders", "global", 2));

    assertThat(response.getCreated()).isTrue();
    assertThat(response.getUnacknowledgedNodeIdsList()).isEmpty();
    assertThat(response.getColor().getShardIdsList()).containsExactly(1, 2);
    appendAndRead(log, "orders", 20);
    // The client spread the appends over both new shards; both are served by replicas.
    Topology topology = log.topology();
    Color orders = topology.color("orders").orElseThrow();
    assertThat(topology.shardsInSubtree(orders.id())).hasSize(2);
    // global's subtree now also holds the new shards; its records stay readable.
    appendAndRead(log, "global", 5);
  }

  @Test
  void shouldServeTheNewTopologyAsMetadataFromEveryNode() throws Exception {
    start(DevCluster.Layout.FLAT);
    admin().addColor(request("orders", "global", 1));

    for (NodeAddress node : cluster.topology().nodes().values()) {
      FlexLog log = client(node.hostPort());
      assertThat(log.topology().version()).as("node %d", node.id()).isEqualTo(2);
      assertThat(log.topology().color("orders")).as("node %d", node.id()).isPresent();
    }
  }

  @Test
  void shouldKeepAnAddedColorAndItsRecordsAcrossARestart() throws Exception {
    int port = FreePorts.consecutive(DevCluster.nodeCount(DevCluster.Layout.FLAT));
    start(DevCluster.Layout.FLAT, port);
    admin().addColor(request("orders", "global", 2));
    Map<Long, String> written = appendAndRead(client(cluster.bootstrap()), "orders", 10);
    closeClusterAndClients();

    start(DevCluster.Layout.FLAT, port);

    assertThat(cluster.topology().color("orders")).isPresent();
    assertThat(cluster.topology().version()).isEqualTo(2);
    FlexLog log = client(cluster.bootstrap());
    written.forEach(
        (sn, value) ->
            assertThat(log.read("orders", sn).map(LogRecord::payload)).contains(bytes(value)));
    long next = log.append("orders", bytes("after restart"));
    assertThat(next)
        .isGreaterThan(written.keySet().stream().mapToLong(Long::longValue).max().orElseThrow());
    // The same request again is idempotent after the restart too.
    assertThat(admin().addColor(request("orders", "global", 2)).getCreated()).isFalse();
  }

  @Test
  void shouldAdoptNewNodeAddressesOnRestartAsANewTopologyVersion() throws Exception {
    start(DevCluster.Layout.FLAT);
    admin().addColor(request("orders", "global", 1));
    closeClusterAndClients();

    start(DevCluster.Layout.FLAT); // other ports

    Topology topology = cluster.topology();
    assertThat(topology.version()).isEqualTo(3);
    assertThat(topology.color("orders")).isPresent();
    assertThat(cluster.bootstrap()).endsWith(":" + topology.node(0).port());
    appendAndRead(client(cluster.bootstrap()), "orders", 3);
  }

  private void closeClusterAndClients() throws Exception {
    for (int i = resources.size() - 1; i >= 0; i--) {
      resources.get(i).close();
    }
    resources.clear();
    cluster.close();
    cluster = null;
  }

  @Test
  void shouldRunTheTreeLayoutWithAppendsOnBothLeaves() throws Exception {
    start(DevCluster.Layout.TREE);
    Topology topology = cluster.topology();
    assertThat(topology.colors())
        .extracting(c -> c.name() + "@" + c.sequencerId())
        .containsExactly("global@0", "left@1", "right@2");
    assertThat(topology.shards())
        .extracting(s -> topology.color(s.colorId()).orElseThrow().name() + s.replicaNodeIds())
        .containsExactly("left[3, 4, 5]", "left[6, 7, 8]", "right[3, 4, 5]", "right[6, 7, 8]");
    for (ReplicaNode replica : cluster.replicas()) {
      assertThat(replica.sequencerLinks()).as("replica %d", replica.nodeId()).containsExactly(1, 2);
    }

    FlexLog log = client(cluster.bootstrap());
    Map<Long, String> left = appendAndRead(log, "left", 20);
    Map<Long, String> right = appendAndRead(log, "right", 20);
    // Leaves order independently: each has its own SN space.
    assertThat(left).hasSize(20);
    assertThat(right).hasSize(20);
  }

  @Test
  void shouldAddAColorUnderALeafOnTheLeafsSequencerNode() throws Exception {
    start(DevCluster.Layout.TREE);
    FlexLog log = client(cluster.bootstrap());

    AddColorResponse response = admin().addColor(request("left-hot", "left", 2));

    assertThat(response.getColor().getSequencerNodeId()).isEqualTo(1);
    Topology topology = cluster.topology();
    Set<Integer> replicaNodes = new HashSet<>();
    for (int shardId : response.getColor().getShardIdsList()) {
      Shard shard = topology.shard(shardId).orElseThrow();
      assertThat(shard.replicaNodeIds()).hasSize(3).doesNotHaveDuplicates();
      replicaNodes.addAll(shard.replicaNodeIds());
    }
    // Six replica nodes, all equally loaded before: the two shards use all six.
    assertThat(replicaNodes).containsExactlyInAnyOrder(3, 4, 5, 6, 7, 8);
    appendAndRead(log, "left-hot", 10);
    appendAndRead(log, "left", 10); // left's subtree grew by the new shards
  }

  @Test
  void shouldLinkReplicasToTheRootWhenAColorUnderTheRootGetsShards() throws Exception {
    start(DevCluster.Layout.TREE);
    FlexLog log = client(cluster.bootstrap());

    AddColorResponse response = admin().addColor(request("audit", "global", 1));

    assertThat(response.getColor().getSequencerNodeId()).isZero();
    Shard shard = cluster.topology().shard(response.getColor().getShardIds(0)).orElseThrow();
    for (ReplicaNode replica : cluster.replicas()) {
      if (shard.replicaNodeIds().contains(replica.nodeId())) {
        assertThat(replica.sequencerLinks()).containsExactly(0, 1, 2);
      } else {
        assertThat(replica.sequencerLinks()).containsExactly(1, 2);
      }
    }
    // The root orders its new child directly: no forwarding between sequencer nodes is needed.
    appendAndRead(log, "audit", 10);
  }

  @Test
  void shouldRefuseADataDirectoryWrittenByTheOtherLayout() throws Exception {
    start(DevCluster.Layout.FLAT);
    cluster.close();
    cluster = null;

    assertThatThrownBy(() -> start(DevCluster.Layout.TREE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("holds a dev cluster with nodes")
        .hasMessageContaining("use another --data directory");
  }
}
