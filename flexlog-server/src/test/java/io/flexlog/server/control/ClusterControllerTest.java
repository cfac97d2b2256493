package io.flexlog.server.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.error.ColorExistsException;
import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.core.error.NotEnoughNodesException;
import io.flexlog.core.error.UnknownColorException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Retention;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.core.util.DurableFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterControllerTest {
  @TempDir Path dir;

  private ClusterController controller(Topology initial, Duration applyTimeout) throws IOException {
    MetadataStore store = new MetadataStore(dir);
    store.write(initial);
    return new ClusterController(initial, store, applyTimeout);
  }

  private ClusterController controller(int replicaNodes) throws IOException {
    return controller(TestTopologies.twoLevel(replicaNodes), Duration.ofSeconds(5));
  }

  private static List<Shard> shardsOf(Topology topology, String color) {
    int id = topology.color(color).orElseThrow().id();
    return topology.shards().stream().filter(s -> s.colorId() == id).toList();
  }

  @Test
  void shouldCreateAColorWithShardsOnDistinctLeastLoadedReplicaNodes() throws Exception {
    ClusterController controller = controller(6); // replica nodes 10..15; 10-12 hold shard 0

    AddColorResult result = controller.addColor(new ColorSpec("orders", "global", 2, 3, null));

    assertThat(result.created()).isTrue();
    Topology topology = result.topology();
    assertThat(topology.version()).isEqualTo(2);
    assertThat(result.color()).isEqualTo(new Color(2, "orders", Color.GLOBAL_ID, 0));
    List<Shard> shards = shardsOf(topology, "orders");
    assertThat(shards).extracting(Shard::id).containsExactly(1, 2);
    // The three idle nodes first; then the least loaded again, ties broken by node id.
    assertThat(shards.get(0).replicaNodeIds()).containsExactly(13, 14, 15);
    assertThat(shards.get(1).replicaNodeIds()).containsExactly(10, 11, 12);
    assertThat(controller.topology()).isEqualTo(topology);
  }

  @Test
  void shouldPlaceTheRoleOnTheParentsSequencerUnlessOneIsGiven() throws Exception {
    ClusterController controller = controller(3);

    Color underLeft = controller.addColor(new ColorSpec("l1", "left", 1, 3, null)).color();
    Color pinned = controller.addColor(new ColorSpec("g1", "global", 1, 3, 1)).color();

    assertThat(underLeft.sequencerId()).isEqualTo(1);
    assertThat(underLeft.parentId()).isEqualTo(1);
    assertThat(pinned.sequencerId()).isEqualTo(1);
    assertThat(pinned.parentId()).isEqualTo(Color.GLOBAL_ID);
  }

  @Test
  void shouldReturnTheExistingColorWhenAddedAgainWithTheSameSettings() throws Exception {
    ClusterController controller = controller(3);
    AddColorResult first = controller.addColor(new ColorSpec("orders", "global", 2, 2, null));

    AddColorResult again = controller.addColor(new ColorSpec("orders", "global", 2, 2, null));
    AddColorResult withDefaults = controller.addColor(new ColorSpec("left", "global", 1, 3, 1));

    assertThat(again.created()).isFalse();
    assertThat(again.color()).isEqualTo(first.color());
    assertThat(again.topology().version()).isEqualTo(first.topology().version());
    assertThat(withDefaults.created()).isFalse();
    assertThat(controller.topology().version()).isEqualTo(2);
  }

  @Test
  void shouldRejectAnUnknownParentNamingTheKnownColors() throws Exception {
    ClusterController controller = controller(3);

    assertThatThrownBy(() -> controller.addColor(new ColorSpec("x", "nope", 1, 3, null)))
        .isInstanceOf(UnknownColorException.class)
        .hasMessageContaining("parent color 'nope' does not exist")
        .hasMessageContaining("[global, left]");
    assertThat(controller.topology().version()).isEqualTo(1);
  }

  @Test
  void shouldRejectADuplicateNameWithOtherSettings() throws Exception {
    ClusterController controller = controller(4);
    controller.addColor(new ColorSpec("orders", "global", 2, 3, null));

    assertThatThrownBy(() -> controller.addColor(new ColorSpec("orders", "left", 2, 3, null)))
        .isInstanceOf(ColorExistsException.class)
        .hasMessageContaining("already exists with parent 'global', 2 shard(s) of 3 replica(s)")
        .hasMessageContaining("requested parent 'left'");
    assertThatThrownBy(() -> controller.addColor(new ColorSpec("orders", "global", 1, 3, null)))
        .isInstanceOf(ColorExistsException.class);
    assertThatThrownBy(() -> controller.addColor(new ColorSpec("orders", "global", 2, 2, null)))
        .isInstanceOf(ColorExistsException.class);
    assertThatThrownBy(() -> controller.addColor(new ColorSpec("orders", "global", 2, 3, 1)))
        .isInstanceOf(ColorExistsException.class);
    assertThatThrownBy(() -> controller.addColor(new ColorSpec("global", "left", 1, 3, null)))
        .isInstanceOf(ColorExistsException.class)
        .hasMessageContaining("it is the root");
    assertThat(controller.topology().version()).isEqualTo(2);
  }

  @Test
  void shouldRejectAReplicationFactorAboveTheNumberOfReplicaNodes() throws Exception {
    ClusterController controller = controller(3);

    assertThatThrownBy(() -> controller.addColor(new ColorSpec("x", "global", 1, 4, null)))
        .isInstanceOf(NotEnoughNodesException.class)
        .hasMessageContaining("needs 4 distinct replica nodes per shard")
        .hasMessageContaining("the cluster has 3 [10, 11, 12]");
    assertThat(controller.topology().version()).isEqualTo(1);
  }

  @Test
  void shouldRejectBadNamesCountsAndSequencers() throws Exception {
    ClusterController controller = controller(3);

    assertThatThrownBy(() -> controller.addColor(new ColorSpec("bad name", "global", 1, 3, null)))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("illegal color name 'bad name'");
    assertThatThrownBy(() -> controller.addColor(new ColorSpec("x", "", 1, 3, null)))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("parent is required");
    assertThatThrownBy(() -> controller.addColor(new ColorSpec("x", "global", -1, 3, null)))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("shards must be in [1, 256], got -1");
    assertThatThrownBy(() -> controller.addColor(new ColorSpec("x", "global", 1, 17, null)))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("replication factor must be in [1, 16], got 17");
    assertThatThrownBy(() -> controller.addColor(new ColorSpec("x", "global", 1, 3, 10)))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("node 10 is not a sequencer node (sequencer nodes: [0, 1])");
    assertThat(controller.topology().version()).isEqualTo(1);
  }

  @Test
  void shouldApplyDefaultsForZeroCounts() throws Exception {
    ClusterController controller = controller(3);

    AddColorResult result = controller.addColor(new ColorSpec("x", "global", 0, 0, null));

    List<Shard> shards = shardsOf(result.topology(), "x");
    assertThat(shards).hasSize(ColorSpec.DEFAULT_SHARDS);
    assertThat(shards.get(0).replicaNodeIds()).hasSize(ColorSpec.DEFAULT_REPLICATION_FACTOR);
  }

  @Test
  void shouldMakeEveryChangeDurableWithANewVersion() throws Exception {
    ClusterController controller = controller(3);
    controller.addColor(new ColorSpec("a", "global", 1, 3, null));
    controller.addColor(new ColorSpec("b", "a", 1, 1, null));

    Topology stored = new MetadataStore(dir).load().orElseThrow();
    assertThat(stored.version()).isEqualTo(3);
    assertThat(stored).isEqualTo(controller.topology());
    assertThat(stored.color("b").orElseThrow().parentId())
        .isEqualTo(stored.color("a").orElseThrow().id());
  }

  @Test
  void shouldChangeNothingWhenTheNewTopologyCannotBeMadeDurable() throws Exception {
    Topology initial = TestTopologies.twoLevel(3);
    MetadataStore failing =
        new MetadataStore(
            dir,
            new DurableFiles.FileOps() {
              @Override
              public void force(FileChannel channel) throws IOException {
                throw new IOException("disk full");
              }

              @Override
              public void rename(Path from, Path to) {}

              @Override
              public void syncDirectory(Path d) {}
            });
    List<Topology> applied = new ArrayList<>();
    ClusterController controller = new ClusterController(initial, failing, Duration.ofSeconds(1));
    controller.addLocalNode(0, applied::add);

    assertThatThrownBy(() -> controller.addColor(new ColorSpec("a", "global", 1, 3, null)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("disk full");
    assertThat(controller.topology()).isEqualTo(initial);
    assertThat(applied).isEmpty();
  }

  @Test
  void shouldApplyANewVersionToLocalSequencerNodesBeforeReplicaNodes() throws Exception {
    ClusterController controller = controller(3);
    List<String> order = Collections.synchronizedList(new ArrayList<>());
    controller.addLocalNode(12, t -> order.add("replica 12 v" + t.version()));
    controller.addLocalNode(0, t -> order.add("sequencer 0 v" + t.version()));
    controller.addLocalNode(10, t -> order.add("replica 10 v" + t.version()));
    controller.addLocalNode(1, t -> order.add("sequencer 1 v" + t.version()));
    controller.addLocalNode(11, t -> order.add("replica 11 v" + t.version()));

    AddColorResult result = controller.addColor(new ColorSpec("a", "global", 1, 3, null));

    assertThat(order.subList(0, 2)).containsExactlyInAnyOrder("sequencer 0 v2", "sequencer 1 v2");
    assertThat(order.subList(2, 5))
        .containsExactlyInAnyOrder("replica 10 v2", "replica 11 v2", "replica 12 v2");
    assertThat(result.unacknowledgedNodeIds()).isEmpty();
  }

  @Test
  void shouldDeliverVersionsToWatchersAndWaitForTheirAcknowledgements() throws Exception {
    ClusterController controller = controller(3);
    List<String> deliveries = new CopyOnWriteArrayList<>();
    Map<Integer, ClusterController.Watch> watches = new HashMap<>();
    for (int node : new int[] {0, 1, 10, 11, 12}) {
      watches.put(
          node,
          controller.watch(
              node,
              1,
              t -> {
                deliveries.add(node + "@" + t.version());
                // Acknowledge from another thread, as a remote node would.
                new Thread(() -> controller.acknowledge(node, t.version())).start();
              }));
    }

    AddColorResult result = controller.addColor(new ColorSpec("a", "global", 1, 3, null));

    assertThat(result.unacknowledgedNodeIds()).isEmpty();
    assertThat(deliveries).hasSize(5);
    assertThat(deliveries.subList(0, 2)).containsExactlyInAnyOrder("0@2", "1@2");

    // A watcher that joins late gets the current version at once; one that knows it gets nothing.
    List<Long> late = new ArrayList<>();
    controller.watch(-1, 1, t -> late.add(t.version()));
    controller.watch(-1, 2, t -> late.add(t.version()));
    assertThat(late).containsExactly(2L);
    watches.values().forEach(ClusterController.Watch::cancel);
  }

  @Test
  void shouldReportNodesThatDidNotAcknowledgeWithinTheApplyTimeout() throws Exception {
    ClusterController controller = controller(TestTopologies.twoLevel(3), Duration.ofMillis(200));
    controller.addLocalNode(0, t -> {});
    List<Long> silent = new ArrayList<>();
    controller.watch(11, 1, t -> silent.add(t.version()));
    controller.watch(1, 1, t -> controller.acknowledge(1, t.version()));

    long start = System.nanoTime();
    AddColorResult result = controller.addColor(new ColorSpec("a", "global", 1, 3, null));

    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofMillis(200));
    assertThat(silent).containsExactly(2L);
    // 10 and 12 never watched; 11 watched but did not acknowledge; 0 and 1 applied it.
    assertThat(result.unacknowledgedNodeIds()).containsExactly(10, 11, 12);
  }

  @Test
  void shouldRepeatEachWatchsLatestVersionAsAHeartbeatButNotOneStillGoingToTheSequencers()
      throws Exception {
    ClusterController controller = controller(3);
    List<Long> sequencer = new CopyOnWriteArrayList<>();
    List<Long> replica = new CopyOnWriteArrayList<>();
    List<Long> upToDate = new CopyOnWriteArrayList<>();
    // Sequencer node 1 takes versions but acknowledges only when the test says so.
    controller.watch(1, 1, t -> sequencer.add(t.version()));
    controller.watch(10, 0, t -> replica.add(t.version()));
    controller.watch(11, 1, t -> upToDate.add(t.version()));
    assertThat(replica).containsExactly(1L);
    assertThat(upToDate).isEmpty();

    controller.heartbeatWatches();
    assertThat(replica).containsExactly(1L, 1L);
    assertThat(upToDate).as("a watch that knew the version is reminded of it").containsExactly(1L);
    assertThat(sequencer).containsExactly(1L);

    Thread adding =
        new Thread(
            () -> {
              try {
                controller.addColor(new ColorSpec("a", "global", 1, 3, null));
              } catch (IOException e) {
                throw new IllegalStateException(e);
              }
            });
    adding.start();
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (sequencer.size() < 2 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(sequencer).containsExactly(1L, 2L);
    // Version 2 waits for sequencer 1's acknowledgement; meanwhile the heartbeat neither waits for
    // the publication nor hands version 2 to a replica node.
    controller.heartbeatWatches();
    assertThat(replica).containsExactly(1L, 1L, 1L);
    assertThat(sequencer).containsExactly(1L, 2L, 2L);

    controller.acknowledge(1, 2);
    adding.join(5_000);
    controller.heartbeatWatches();
    assertThat(replica).containsExactly(1L, 1L, 1L, 2L, 2L);
    assertThat(upToDate).containsExactly(1L, 1L, 2L, 2L);
  }

  @Test
  void shouldDropAWatcherWhoseSinkFails() throws Exception {
    ClusterController controller = controller(3);
    List<Long> delivered = new ArrayList<>();
    controller.watch(
        10,
        1,
        t -> {
          delivered.add(t.version());
          throw new IllegalStateException("stream closed");
        });

    controller.addColor(new ColorSpec("a", "global", 1, 3, null));
    controller.addColor(new ColorSpec("b", "global", 1, 3, null));

    assertThat(delivered).containsExactly(2L);
  }

  // ------------------------------------------------------------------ retention

  @Test
  void shouldCreateWithRetentionAlterItAndKeepItInTheStoreAcrossARestart() throws Exception {
    ClusterController controller = controller(3);
    List<Topology> applied = new CopyOnWriteArrayList<>();
    controller.addLocalNode(10, applied::add);

    AddColorResult added =
        controller.addColor(
            new ColorSpec("events", "global", 1, 3, null, new Retention(60_000, Retention.KEEP)));
    AddColorResult plain = controller.addColor(new ColorSpec("plain", "global", 1, 3, null));
    AlterColorResult altered = controller.alterColor(new ColorAlteration("events", null, 1L << 20));
    AlterColorResult again = controller.alterColor(new ColorAlteration("events", null, 1L << 20));

    assertThat(added.color().retention()).isEqualTo(new Retention(60_000, Retention.KEEP));
    assertThat(plain.color().retention()).isEqualTo(Retention.KEEP_ALL);
    assertThat(altered.changed()).isTrue();
    assertThat(altered.color().retention()).isEqualTo(new Retention(60_000, 1L << 20));
    assertThat(altered.topology().version()).isEqualTo(plain.topology().version() + 1);
    assertThat(again.changed()).isFalse();
    assertThat(again.topology().version()).isEqualTo(altered.topology().version());
    // The local node got the altered version like any other change.
    assertThat(applied.get(applied.size() - 1).color("events").orElseThrow().retention())
        .isEqualTo(new Retention(60_000, 1L << 20));

    Topology reloaded = new MetadataStore(dir).load().orElseThrow();
    assertThat(reloaded).isEqualTo(altered.topology());
    ClusterController restarted =
        new ClusterController(reloaded, new MetadataStore(dir), Duration.ofSeconds(5));
    AlterColorResult back =
        restarted.alterColor(new ColorAlteration("events", Retention.KEEP, null));
    assertThat(back.color().retention()).isEqualTo(new Retention(Retention.KEEP, 1L << 20));
    assertThat(
            new MetadataStore(dir).load().orElseThrow().color("events").orElseThrow().retention())
        .isEqualTo(new Retention(Retention.KEEP, 1L << 20));
  }

  @Test
  void shouldRefuseBadRetentionsAndUnknownColorsWithTypedErrorsNamingTheProblem() throws Exception {
    ClusterController controller = controller(3);
    controller.addColor(new ColorSpec("events", "global", 1, 3, null, new Retention(1000, 5000)));
    long version = controller.topology().version();

    assertThatThrownBy(() -> controller.alterColor(new ColorAlteration("nope", 1000L, null)))
        .isInstanceOf(UnknownColorException.class)
        .hasMessageContaining("cannot alter color 'nope': no such color")
        .hasMessageContaining("events");
    assertThatThrownBy(() -> controller.alterColor(new ColorAlteration("events", -5L, null)))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining(
            "color 'events': retention.ms must be -1 (keep everything) or > 0," + " got -5");
    assertThatThrownBy(() -> controller.alterColor(new ColorAlteration("events", null, 0L)))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("retention.bytes must be -1 (keep everything) or > 0, got 0");
    assertThatThrownBy(() -> controller.alterColor(new ColorAlteration("events", null, null)))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("nothing to change");
    assertThatThrownBy(
            () ->
                controller.addColor(
                    new ColorSpec("events", "global", 1, 3, null, new Retention(2000, 5000))))
        .isInstanceOf(ColorExistsException.class)
        .hasMessageContaining("it has retention.ms=1000 retention.bytes=5000")
        .hasMessageContaining("requested retention.ms=2000 retention.bytes=5000");
    assertThat(controller.topology().version()).isEqualTo(version);
  }
}
