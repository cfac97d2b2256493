package io.flexlog.server.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.flexlog.admin.v1.AddColorRequest;
import io.flexlog.admin.v1.AddColorResponse;
import io.flexlog.admin.v1.ColorInfo;
import io.flexlog.admin.v1.FlexLogAdminGrpc;
import io.flexlog.core.admin.AdminErrors;
import io.flexlog.core.error.ColorExistsException;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.core.error.NotEnoughNodesException;
import io.flexlog.core.error.UnknownColorException;
import io.flexlog.core.model.Topology;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The admin service over real gRPC on loopback. */
class AdminServiceGrpcTest {
  @TempDir Path dir;
  private ClusterController controller;
  private AdminServer server;
  private AdminClient client;
  private final List<AutoCloseable> resources = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    Topology initial = TestTopologies.twoLevel(3);
    MetadataStore store = new MetadataStore(dir);
    store.write(initial);
    controller = new ClusterController(initial, store, Duration.ofSeconds(5));
    server = AdminServer.start("127.0.0.1", 0, controller);
    client = AdminClient.connect(server.hostPort(), Duration.ofSeconds(10));
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable resource : resources) {
      resource.close();
    }
    client.close();
    server.close();
  }

  private static AddColorRequest request(String name, String parent, int shards, int replicas) {
    return AddColorRequest.newBuilder()
        .setName(name)
        .setParent(parent)
        .setShards(shards)
        .setReplicationFactor(replicas)
        .build();
  }

  @Test
  void shouldAddAColorOnceAndReturnItAgainForTheSameRequest() {
    AddColorResponse created = client.addColor(request("orders", "global", 2, 3));
    AddColorResponse again = client.addColor(request("orders", "global", 2, 3));

    assertThat(created.getCreated()).isTrue();
    assertThat(created.getTopologyVersion()).isEqualTo(2);
    ColorInfo color = created.getColor();
    assertThat(color.getName()).isEqualTo("orders");
    assertThat(color.getParent()).isEqualTo("global");
    assertThat(color.getShardIdsList()).containsExactly(1, 2);
    assertThat(color.getReplicationFactor()).isEqualTo(3);
    assertThat(color.getSequencerNodeId()).isZero();
    assertThat(again.getCreated()).isFalse();
    assertThat(again.getColor()).isEqualTo(color);
    assertThat(again.getTopologyVersion()).isEqualTo(2);
  }

  @Test
  void shouldListColorsAndServeTheTopology() {
    client.addColor(request("orders", "left", 1, 2));

    List<ColorInfo> colors = client.listColors().getColorsList();
    assertThat(colors)
        .extracting(c -> c.getName() + "<" + c.getParent() + ":" + c.getShardIdsCount())
        .containsExactly("global<:0", "left<global:1", "orders<left:1");
    assertThat(client.topology()).isEqualTo(controller.topology());
  }

  @Test
  void shouldMapEachRuleViolationToATypedErrorAndAStatusWithTheFlexLogCode() throws Exception {
    client.addColor(request("orders", "global", 1, 3));

    assertThatThrownBy(() -> client.addColor(request("x", "nope", 1, 3)))
        .isInstanceOf(UnknownColorException.class)
        .hasMessageContaining("parent color 'nope' does not exist");
    assertThatThrownBy(() -> client.addColor(request("orders", "global", 2, 3)))
        .isInstanceOf(ColorExistsException.class)
        .hasMessageContaining("already exists");
    assertThatThrownBy(() -> client.addColor(request("x", "global", 1, 4)))
        .isInstanceOf(NotEnoughNodesException.class)
        .hasMessageContaining("needs 4 distinct replica nodes");
    assertThatThrownBy(() -> client.addColor(request("no/slash", "global", 1, 3)))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("illegal color name");

    // What a non-Java client sees: a gRPC status and the FlexLog code in the trailers.
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
    try {
      FlexLogAdminGrpc.FlexLogAdminBlockingStub raw = FlexLogAdminGrpc.newBlockingStub(channel);
      assertStatus(raw, request("x", "nope", 1, 3), Status.Code.NOT_FOUND, "UNKNOWN_COLOR");
      assertStatus(
          raw, request("orders", "left", 1, 3), Status.Code.ALREADY_EXISTS, "COLOR_EXISTS");
      assertStatus(
          raw, request("x", "global", 1, 9), Status.Code.FAILED_PRECONDITION, "NOT_ENOUGH_NODES");
      assertStatus(
          raw, request("", "global", 1, 3), Status.Code.INVALID_ARGUMENT, "INVALID_ARGUMENT");
    } finally {
      channel.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
    }
  }

  private static void assertStatus(
      FlexLogAdminGrpc.FlexLogAdminBlockingStub raw,
      AddColorRequest request,
      Status.Code code,
      String flexLogCode) {
    StatusRuntimeException e =
        catchThrowableOfType(StatusRuntimeException.class, () -> raw.addColor(request));
    assertThat(e.getStatus().getCode()).isEqualTo(code);
    assertThat(e.getTrailers().get(AdminErrors.CODE_KEY)).isEqualTo(flexLogCode);
  }

  @Test
  void shouldReportAnUnreachableAdminServiceAsAFlexLogError() throws Exception {
    int port = server.port();
    server.close();
    try (AdminClient down = AdminClient.connect("127.0.0.1:" + port, Duration.ofSeconds(2))) {
      assertThatThrownBy(down::listColors)
          .isInstanceOf(FlexLogException.class)
          .hasMessageContaining("admin service at 127.0.0.1:" + port);
    }
    server = AdminServer.start("127.0.0.1", 0, controller);
  }

  @Test
  void shouldStreamNewVersionsToAWatchingNodeAndWaitForItsAcknowledgement() throws Exception {
    List<Long> applied = new CopyOnWriteArrayList<>();
    TopologyWatcher watcher =
        TopologyWatcher.start(
            HostPort.parse("admin", server.hostPort()), 10, 1, t -> applied.add(t.version()));
    resources.add(watcher);
    awaitWatching(10);

    AddColorResponse response = client.addColor(request("orders", "global", 1, 3));

    // The controller waited for node 10's acknowledgement before answering.
    assertThat(applied).containsExactly(2L);
    assertThat(response.getUnacknowledgedNodeIdsList()).doesNotContain(10).contains(11, 12);
    assertThat(watcher.appliedVersion()).isEqualTo(2);
  }

  @Test
  void shouldCatchUpAfterTheAdminServiceRestarts() throws Exception {
    List<Long> applied = new CopyOnWriteArrayList<>();
    TopologyWatcher watcher =
        TopologyWatcher.start(
            HostPort.parse("admin", server.hostPort()), 11, 1, t -> applied.add(t.version()));
    resources.add(watcher);
    awaitWatching(11);
    int port = server.port();
    server.close();

    controller.addColor(spec("a"));
    controller.addColor(spec("b"));
    server = AdminServer.start("127.0.0.1", port, controller);

    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (watcher.appliedVersion() < 3 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    // It asked for versions newer than the one it had and got the latest one.
    assertThat(applied).containsExactly(3L);
  }

  @Test
  void shouldEndItsStreamsWhenItStopsLeadingSoThatTheirNodesWatchTheLeader() throws Exception {
    SecondAdmin leader = secondAdmin();
    java.util.concurrent.atomic.AtomicBoolean leads =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    HostPort former =
        restartServer(() -> leads.get() ? java.util.Optional.empty() : leader.optional());
    TopologyWatcher watcher = watching(List.of(former, leader.address()));

    // This node stops leading and, like one cut off from the quorum, applies nothing more; the
    // leader commits a new version.
    leads.set(false);
    leader.controller().addColor(spec("after-the-hand-off"));

    awaitApplied(watcher, 2);
    assertThat(watcher.admin()).isEqualTo(leader.address());
    assertThat(controller.watchCount(10)).isZero();
  }

  /**
   * A node that stops leading and knows the new leader names it to the watchers whose streams it
   * ends: they go there at once, not to the next admin service in their list, which may be cut off
   * (a silent one here).
   */
  @Test
  void shouldSendTheWatchersOfItsEndedStreamsToTheLeaderItKnows() throws Exception {
    SecondAdmin leader = secondAdmin();
    java.util.concurrent.atomic.AtomicBoolean leads =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    HostPort former =
        restartServer(
            new AdminRoute() {
              @Override
              public java.util.Optional<HostPort> leaderAdmin() {
                return leads.get() ? java.util.Optional.empty() : leader.optional();
              }

              @Override
              public java.util.Optional<HostPort> otherLeaderNow() {
                return leaderAdmin();
              }
            });
    java.util.concurrent.atomic.AtomicInteger silentCalls =
        new java.util.concurrent.atomic.AtomicInteger();
    TopologyWatcher watcher = watching(List.of(former, silentAdmin(silentCalls), leader.address()));

    leads.set(false);
    leader.controller().addColor(spec("after-the-hand-off"));

    awaitApplied(watcher, 2);
    assertThat(watcher.admin()).isEqualTo(leader.address());
    assertThat(silentCalls.get()).as("streams opened at the silent admin service").isZero();
  }

  /**
   * An admin service the network cut off looks, from the watcher's side, like a stream that never
   * says anything: here one that accepts WatchTopology and never answers. The watcher gives it up
   * after {@link TopologyWatcher#SILENT_STREAM_MS} and watches the next admin service.
   */
  @Test
  void shouldWatchTheNextAdminServiceWhenItsStreamFallsSilent() throws Exception {
    HostPort silent = silentAdmin(new java.util.concurrent.atomic.AtomicInteger());
    HostPort live = HostPort.parse("admin", server.hostPort());
    List<Long> applied = new CopyOnWriteArrayList<>();
    TopologyWatcher watcher =
        TopologyWatcher.start(List.of(silent, live), 10, 1, t -> applied.add(t.version()));
    resources.add(watcher);

    awaitWatching(10);
    assertThat(watcher.admin()).isEqualTo(live);
    controller.addColor(spec("after-the-silence"));
    awaitApplied(watcher, 2);
    assertThat(applied).containsExactly(2L);
  }

  /**
   * A version the node failed to apply is tried again without another change (the leader repeats it
   * at every heartbeat), in time for AddColor to count the node's acknowledgement.
   */
  @Test
  void shouldTryAVersionThatFailedToApplyAgain() throws Exception {
    java.util.concurrent.atomic.AtomicInteger attempts =
        new java.util.concurrent.atomic.AtomicInteger();
    TopologyWatcher watcher =
        TopologyWatcher.start(
            HostPort.parse("admin", server.hostPort()),
            10,
            1,
            t -> {
              if (attempts.incrementAndGet() == 1) {
                throw new java.io.IOException("cannot write the cluster-metadata cache");
              }
            });
    resources.add(watcher);
    awaitWatching(10);

    AddColorResponse response = client.addColor(request("retried", "global", 1, 3));

    awaitApplied(watcher, 2);
    assertThat(attempts.get()).isEqualTo(2);
    assertThat(response.getUnacknowledgedNodeIdsList()).doesNotContain(10);
  }

  /** A stream that has nothing new to say is kept: the leader's heartbeats keep it alive. */
  @Test
  void shouldKeepAQuietStreamWhileTheLeaderSendsHeartbeats() throws Exception {
    HostPort live = HostPort.parse("admin", server.hostPort());
    java.util.concurrent.atomic.AtomicInteger elsewhere =
        new java.util.concurrent.atomic.AtomicInteger();
    TopologyWatcher watcher = watching(List.of(live, silentAdmin(elsewhere)));

    Thread.sleep(3 * TopologyWatcher.SILENT_STREAM_MS);

    assertThat(elsewhere.get()).as("streams opened at the next admin service").isZero();
    assertThat(watcher.admin()).as("the admin service watched").isEqualTo(live);
    assertThat(controller.watchCount(10)).isEqualTo(1);
  }

  /** A second admin service with its own copy of the metadata: the quorum's new leader. */
  private record SecondAdmin(ClusterController controller, HostPort address) {
    java.util.Optional<HostPort> optional() {
      return java.util.Optional.of(address);
    }
  }

  private SecondAdmin secondAdmin() throws Exception {
    Path leaderDir = dir.resolve("leader");
    java.nio.file.Files.createDirectories(leaderDir);
    MetadataStore leaderStore = new MetadataStore(leaderDir);
    leaderStore.write(controller.topology());
    ClusterController leaderController =
        new ClusterController(controller.topology(), leaderStore, Duration.ofSeconds(5));
    AdminServer leaderServer = AdminServer.start("127.0.0.1", 0, leaderController);
    resources.add(leaderServer);
    return new SecondAdmin(leaderController, HostPort.parse("leader", leaderServer.hostPort()));
  }

  /** Restarts this test's admin service as a quorum node routed by {@code route}. */
  private HostPort restartServer(AdminRoute route) throws Exception {
    server.close();
    server = AdminServer.start("127.0.0.1", 0, controller, route, Duration.ofSeconds(5));
    return HostPort.parse("admin", server.hostPort());
  }

  /** A watcher of node 10 over {@code admins}, once its first stream reached the server. */
  private TopologyWatcher watching(List<HostPort> admins) throws InterruptedException {
    TopologyWatcher watcher = TopologyWatcher.start(admins, 10, 1, t -> {});
    resources.add(watcher);
    awaitWatching(10);
    return watcher;
  }

  private static void awaitApplied(TopologyWatcher watcher, long version) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (watcher.appliedVersion() < version && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(watcher.appliedVersion()).as("the version the leader committed").isEqualTo(version);
  }

  /** An admin service that takes WatchTopology calls, counts them and never answers them. */
  private HostPort silentAdmin(java.util.concurrent.atomic.AtomicInteger calls) throws Exception {
    io.grpc.Server silent =
        io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder.forAddress(
                new java.net.InetSocketAddress("127.0.0.1", 0))
            .addService(
                new FlexLogAdminGrpc.FlexLogAdminImplBase() {
                  @Override
                  public void watchTopology(
                      io.flexlog.admin.v1.WatchTopologyRequest request,
                      io.grpc.stub.StreamObserver<io.flexlog.admin.v1.Topology> response) {
                    calls.incrementAndGet();
                  }
                })
            .build()
            .start();
    resources.add(() -> silent.shutdownNow().awaitTermination(5, TimeUnit.SECONDS));
    return HostPort.parse("silent", "127.0.0.1:" + silent.getPort());
  }

  private static ColorSpec spec(String name) {
    return new ColorSpec(name, "global", 1, 3, null);
  }

  // The watch is registered once the stream reached the server.
  private void awaitWatching(int nodeId) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (controller.watchCount(nodeId) == 0) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("node " + nodeId + " did not start watching");
      }
      Thread.sleep(10);
    }
  }
}
