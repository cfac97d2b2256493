package io.flexlog.server;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.client.AlterColorOptions;
import io.flexlog.client.AlterColorResult;
import io.flexlog.client.ClusterDescription;
import io.flexlog.client.ColorDescription;
import io.flexlog.client.CreateColorResult;
import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogAdmin;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.LogRecord;
import io.flexlog.client.NewColor;
import io.flexlog.core.error.ColorExistsException;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.FlexLogTimeoutException;
import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.core.error.NotEnoughNodesException;
import io.flexlog.core.error.UnknownColorException;
import io.flexlog.core.error.UnreachableException;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Retention;
import io.flexlog.core.testing.FreePorts;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.server.dev.DevCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FlexLogAdmin} against the dev cluster: every operation and every bad input, sent on the
 * data plane to a sequencer or a replica node, which relays it to the admin service
 * (docs/architecture.md#admin-requests-on-the-data-plane).
 */
class FlexLogAdminEndToEndTest {
  @TempDir static Path data;
  private static DevCluster cluster;
  private static FlexLogAdmin admin;

  @BeforeAll
  static void start() throws Exception {
    cluster =
        DevCluster.start(
            new DevCluster.Options(
                data,
                FreePorts.consecutive(4),
                StorageEngines.MAPPED,
                DurabilityMode.PROCESS,
                16L << 20),
            new SimpleMeterRegistry(),
            new PrintStream(new ByteArrayOutputStream()));
    admin = FlexLogAdmin.create(cluster.bootstrap());
  }

  @AfterAll
  static void stop() {
    admin.close();
    cluster.close();
  }

  @Test
  void shouldCreateAColorThatAppendsUseAtOnceAndCreateItAgainUnchanged() {
    CreateColorResult created =
        admin.createColor(NewColor.of("orders", "global").shards(2).replicationFactor(3));
    CreateColorResult again =
        admin.createColor(NewColor.of("orders", "global").shards(2).replicationFactor(3));

    assertThat(created.created()).isTrue();
    assertThat(created.color().name()).isEqualTo("orders");
    assertThat(created.color().parent()).contains("global");
    assertThat(created.color().shardIds()).hasSize(2);
    assertThat(created.color().replicationFactor()).isEqualTo(3);
    assertThat(created.color().sequencerNodeId()).isEqualTo(DevCluster.ROOT_NODE);
    assertThat(created.unacknowledgedNodeIds()).isEmpty();
    assertThat(created.topologyVersion()).isEqualTo(cluster.topology().version());
    assertThat(again.created()).isFalse();
    assertThat(again.color()).isEqualTo(created.color());
    try (FlexLog log = FlexLog.connect(cluster.bootstrap())) {
      long sn = log.append("orders", "paid".getBytes(UTF_8));
      assertThat(log.read("orders", sn).map(LogRecord::payload)).contains("paid".getBytes(UTF_8));
    }
  }

  @Test
  void shouldListAndDescribeColorsAsTheMetadataHasThem() {
    admin.createColor(NewColor.of("listed", "global"));

    ColorDescription global = admin.describeColor("global");
    ColorDescription listed = admin.describeColor("listed");

    assertThat(global.parent()).isEmpty();
    assertThat(global.shardIds()).containsExactly(0);
    assertThat(global.replicationFactor()).isEqualTo(DevCluster.REPLICAS);
    assertThat(listed.parent()).contains("global");
    assertThat(listed.shardIds()).hasSize(1);
    assertThat(admin.listColors())
        .extracting(ColorDescription::name)
        .containsExactlyElementsOf(cluster.topology().colors().stream().map(c -> c.name()).toList())
        .contains("global", "listed");
  }

  @Test
  void shouldDescribeTheClusterWithItsNodesShardsAndAdminService() {
    ClusterDescription description = admin.describeCluster();

    assertThat(description.topology()).isEqualTo(cluster.topology());
    assertThat(description.nodes())
        .extracting(NodeAddress::id)
        .containsExactlyInAnyOrder(0, 1, 2, 3);
    assertThat(description.shards()).isNotEmpty();
    assertThat(description.maxRecordBytes()).isPositive();
    assertThat(description.adminServices())
        .extracting(ClusterDescription.AdminService::toString)
        .containsExactly(cluster.adminAddress());
  }

  @Test
  void shouldServeTheSameThroughAReplicaNodeAndFromAnExistingClient() throws Exception {
    NodeAddress replica = cluster.topology().node(1);
    try (FlexLog log = FlexLog.connect(replica.host() + ":" + replica.port());
        FlexLogAdmin viaReplica = FlexLogAdmin.create(log)) {
      CompletableFuture<CreateColorResult> created =
          viaReplica.createColorAsync(NewColor.of("via-replica", "global"));
      assertThat(created.get().created()).isTrue();
      assertThat(viaReplica.describeColor("via-replica").id())
          .isEqualTo(created.get().color().id());
    }
  }

  @Test
  void shouldFailEachBadCreationWithItsTypedError() {
    admin.createColor(NewColor.of("taken", "global"));

    assertThatThrownBy(() -> admin.createColor(NewColor.of("bad name", "global")))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("illegal color name 'bad name'");
    assertThatThrownBy(() -> admin.createColor(NewColor.of("orphan", "nope")))
        .isInstanceOf(UnknownColorException.class)
        .hasMessageContaining("parent color 'nope' does not exist");
    assertThatThrownBy(() -> admin.createColor(NewColor.of("taken", "global").shards(3)))
        .isInstanceOf(ColorExistsException.class)
        .hasMessageContaining("'taken' already exists");
    assertThatThrownBy(() -> admin.createColor(NewColor.of("wide", "global").replicationFactor(4)))
        .isInstanceOf(NotEnoughNodesException.class)
        .hasMessageContaining("needs 4 distinct replica nodes");
    assertThatThrownBy(() -> admin.createColor(NewColor.of("huge", "global").shards(257)))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("shards must be in [1, 256]");
    assertThatThrownBy(() -> admin.createColor(NewColor.of("far", "global").sequencerNode(3)))
        .isInstanceOf(InvalidArgumentException.class);
    assertThat(admin.listColors())
        .extracting(ColorDescription::name)
        .doesNotContain("bad name", "orphan", "wide", "huge", "far");
  }

  @Test
  void shouldCreateWithRetentionAndAlterItSoThatDescribeShowsTheNewRetention() {
    CreateColorResult created =
        admin.createColor(NewColor.of("retained", "global").retentionMs(60_000));
    ColorDescription plain = admin.createColor(NewColor.of("plain", "global")).color();

    AlterColorResult altered =
        admin.alterColor("retained", AlterColorOptions.retentionBytes(1 << 20));
    AlterColorResult again =
        admin.alterColor("retained", AlterColorOptions.retentionBytes(1 << 20));
    ColorDescription described = admin.describeColor("retained");

    assertThat(created.color().retention()).isEqualTo(new Retention(60_000, Retention.KEEP));
    assertThat(plain.retention()).isEqualTo(Retention.KEEP_ALL);
    assertThat(altered.changed()).isTrue();
    assertThat(altered.color().retention()).isEqualTo(new Retention(60_000, 1 << 20));
    assertThat(altered.topologyVersion()).isGreaterThan(created.topologyVersion());
    assertThat(again.changed()).isFalse();
    assertThat(again.topologyVersion()).isEqualTo(altered.topologyVersion());
    assertThat(described.retention()).isEqualTo(new Retention(60_000, 1 << 20));
    assertThat(admin.listColors())
        .filteredOn(c -> c.name().equals("retained"))
        .extracting(ColorDescription::retention)
        .containsExactly(new Retention(60_000, 1 << 20));
    assertThat(cluster.topology().color("retained").orElseThrow().retention())
        .isEqualTo(new Retention(60_000, 1 << 20));
  }

  @Test
  void shouldAlterThroughAReplicaNodeAndKeepTheSettingsLeftOut() throws Exception {
    admin.createColor(NewColor.of("altered-via-replica", "global").retentionBytes(4096));
    NodeAddress replica = cluster.topology().node(1);
    try (FlexLogAdmin viaReplica = FlexLogAdmin.create(replica.host() + ":" + replica.port())) {
      AlterColorResult result =
          viaReplica
              .alterColorAsync("altered-via-replica", AlterColorOptions.retentionMs(3_600_000))
              .get();

      assertThat(result.changed()).isTrue();
      assertThat(result.color().retention()).isEqualTo(new Retention(3_600_000, 4096));
      assertThat(viaReplica.describeColor("altered-via-replica").retention())
          .isEqualTo(new Retention(3_600_000, 4096));
    }
  }

  @Test
  void shouldFailEachBadAlterationWithItsTypedErrorAndChangeNothing() {
    admin.createColor(NewColor.of("kept", "global").retentionMs(1000));

    assertThatThrownBy(() -> admin.alterColor("kept", AlterColorOptions.retentionMs(0)))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("retention.ms must be -1 (keep everything) or > 0, got 0");
    assertThatThrownBy(
            () ->
                admin.alterColor("kept", AlterColorOptions.retentionMs(5000).andRetentionBytes(-7)))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("retention.bytes must be -1 (keep everything) or > 0, got -7");
    assertThatThrownBy(() -> admin.alterColor("no-such", AlterColorOptions.retentionMs(1000)))
        .isInstanceOf(UnknownColorException.class)
        .hasMessageContaining("cannot alter color 'no-such': no such color");
    assertThatThrownBy(() -> admin.alterColor("", AlterColorOptions.retentionMs(1000)))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("alterColor needs a color name");
    assertThatThrownBy(
            () -> admin.createColor(NewColor.of("bad-retention", "global").retentionBytes(-5)))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("retention.bytes must be -1 (keep everything) or > 0, got -5");
    assertThat(admin.describeColor("kept").retention()).isEqualTo(new Retention(1000, -1));
    assertThat(admin.listColors())
        .extracting(ColorDescription::name)
        .doesNotContain("bad-retention");
  }

  @Test
  void shouldNameAnUnknownColorAndRefuseAnEmptyName() {
    assertThatThrownBy(() -> admin.describeColor("nope"))
        .isInstanceOf(UnknownColorException.class)
        .hasMessageContaining("unknown color 'nope'");
    assertThatThrownBy(() -> admin.describeColor(""))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("needs a color name");
  }

  @Test
  void shouldSkipAServerThatIsDownAndFailWithUnreachableWhenAllAre() throws Exception {
    int down = FreePorts.consecutive(1);
    try (FlexLogAdmin skipping =
            FlexLogAdmin.create("127.0.0.1:" + down + "," + cluster.bootstrap());
        FlexLogAdmin nowhere = FlexLogAdmin.create("127.0.0.1:" + down)) {
      assertThat(skipping.describeColor("global").name()).isEqualTo("global");
      assertThatThrownBy(nowhere::listColors)
          .isInstanceOf(UnreachableException.class)
          .hasMessageContaining("127.0.0.1:" + down);
    }
  }

  @Test
  void shouldTimeOutAgainstAServerThatNeverAnswers() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
        FlexLogAdmin waiting =
            FlexLogAdmin.create(
                FlexLogConfig.builder()
                    .bootstrapServers("127.0.0.1:" + silent.getLocalPort())
                    .deliveryTimeout(Duration.ofMillis(500))
                    .requestTimeout(Duration.ofMillis(500))
                    .build())) {
      long start = System.nanoTime();
      assertThatThrownBy(waiting::describeCluster)
          .isInstanceOf(FlexLogTimeoutException.class)
          .hasMessageContaining("DESCRIBE_CLUSTER got no answer within delivery.timeout.ms = 500");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }
  }

  @Test
  void shouldFailCallsAfterClose() {
    FlexLogAdmin closed = FlexLogAdmin.create(cluster.bootstrap());
    closed.close();

    assertThatThrownBy(closed::listColors)
        .isInstanceOf(FlexLogException.class)
        .hasMessageContaining("closed");
  }
}
