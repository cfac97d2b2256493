package io.flexlog.sequencer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.NodeAddress.Kind;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Token;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.WatermarkDescriptor;
import io.flexlog.sequencer.RawFrameClient.Entry;
import io.flexlog.sequencer.ordering.SequencerMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sequencer tree over loopback: a root node ordering {@code global} and two leaf nodes ordering
 * {@code left} and {@code right}, each with a shard of two raw-frame replicas.
 */
class SequencerTreeTest {
  private static final int ROOT = 0;
  private static final int LEFT_NODE = 1;
  private static final int RIGHT_NODE = 2;
  private static final int GLOBAL = Color.GLOBAL_ID;
  private static final int LEFT = 1;
  private static final int RIGHT = 2;
  private static final int LEFT_SHARD = 10;
  private static final int RIGHT_SHARD = 20;

  @RegisterExtension static final NodeTestResources OPENED = new NodeTestResources();

  @TempDir Path dataDir;
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final int[] ports = new int[3];
  private Topology topology;

  @BeforeEach
  void pickPorts() throws IOException {
    for (int i = 0; i < ports.length; i++) {
      ports[i] = freePort();
    }
    topology = tree(1, List.of(), List.of());
  }

  /**
   * The tree plus extra colors and shards. Sequencer nodes listen on fixed free ports, because
   * children find their parents by the address in the topology.
   */
  private Topology tree(long version, List<Color> moreColors, List<Shard> moreShards) {
    List<NodeAddress> nodes = new ArrayList<>();
    for (int node : new int[] {ROOT, LEFT_NODE, RIGHT_NODE}) {
      nodes.add(new NodeAddress(node, Kind.SEQUENCER, "127.0.0.1", ports[node]));
    }
    for (int replica : new int[] {100, 101, 200, 201, 300}) {
      nodes.add(new NodeAddress(replica, Kind.REPLICA, "127.0.0.1", 0));
    }
    List<Color> colors = new ArrayList<>();
    colors.add(new Color(GLOBAL, "global", Color.NO_PARENT, ROOT));
    colors.add(new Color(LEFT, "left", GLOBAL, LEFT_NODE));
    colors.add(new Color(RIGHT, "right", GLOBAL, RIGHT_NODE));
    colors.addAll(moreColors);
    List<Shard> shards = new ArrayList<>();
    shards.add(new Shard(LEFT_SHARD, LEFT, List.of(100, 101)));
    shards.add(new Shard(RIGHT_SHARD, RIGHT, List.of(200, 201)));
    shards.addAll(moreShards);
    return new Topology(version, nodes, colors, shards);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private SequencerNode start(int nodeId, Topology t) throws IOException {
    SequencerConfig config =
        SequencerConfig.builder()
            .nodeId(nodeId)
            .port(ports[nodeId])
            .dataDir(dataDir.resolve("node" + nodeId))
            .build();
    SequencerNode node = new SequencerNode(config, t, meters);
    OPENED.add(node);
    node.start();
    return node;
  }

  /**
   * Connects a replica to its leaf, says HELLO for its shard and waits for the watermark of the
   * shard's color (hosted by the leaf), which shows the registration is done.
   */
  private RawFrameClient replica(SequencerNode leaf, int replicaId, int shardId)
      throws InterruptedException {
    RawFrameClient client = OPENED.connect(leaf.port());
    client.hello(replicaId, shardId);
    int shardColor = leaf.topology().shard(shardId).orElseThrow().colorId();
    while (true) {
      ByteBuf frame = client.next(MessageType.WATERMARK);
      if (WatermarkDescriptor.colorId(frame) == shardColor) {
        return client;
      }
    }
  }

  private static Token[] tokens(long session, int count) {
    Token[] tokens = new Token[count];
    for (int i = 0; i < count; i++) {
      tokens[i] = new Token(session, i + 1);
    }
    return tokens;
  }

  private static List<Long> sns(List<Entry> entries) {
    return entries.stream().map(Entry::sn).toList();
  }

  @Test
  void shouldGiveGlobalRequestsFromBothLeavesUniqueIncreasingSnsOfTheRoot() throws Exception {
    SequencerNode root = start(ROOT, topology);
    SequencerNode left = start(LEFT_NODE, topology);
    SequencerNode right = start(RIGHT_NODE, topology);
    RawFrameClient l0 = replica(left, 100, LEFT_SHARD);
    RawFrameClient l1 = replica(left, 101, LEFT_SHARD);
    RawFrameClient r0 = replica(right, 200, RIGHT_SHARD);
    Token[] leftTokens = tokens(1, 20);
    Token[] rightTokens = tokens(2, 20);

    l0.orderRequest(GLOBAL, LEFT_SHARD, 100, leftTokens);
    r0.orderRequest(GLOBAL, RIGHT_SHARD, 200, rightTokens);

    List<Entry> fromLeft = l0.awaitOrdered(GLOBAL, leftTokens.length);
    List<Entry> fromRight = r0.awaitOrdered(GLOBAL, rightTokens.length);
    assertThat(l1.awaitOrdered(GLOBAL, leftTokens.length)).isEqualTo(fromLeft);
    assertThat(fromLeft).extracting(Entry::token).containsExactly(leftTokens);
    assertThat(fromRight).extracting(Entry::token).containsExactly(rightTokens);
    assertThat(sns(fromLeft)).isSorted().doesNotHaveDuplicates();
    assertThat(sns(fromRight)).isSorted().doesNotHaveDuplicates();
    Set<Long> all = new HashSet<>(sns(fromLeft));
    all.addAll(sns(fromRight));
    assertThat(all).hasSize(leftTokens.length + rightTokens.length);
    assertThat(all).allSatisfy(sn -> assertThat(Sn.epoch(sn)).isEqualTo(root.epoch()));
    assertThat(issued(ROOT, "global")).isEqualTo(40.0);
  }

  @Test
  void shouldAnswerATokenResentByAnotherReplicaAtTheLeafWithItsSn() throws Exception {
    start(ROOT, topology);
    SequencerNode left = start(LEFT_NODE, topology);
    RawFrameClient l0 = replica(left, 100, LEFT_SHARD);
    RawFrameClient l1 = replica(left, 101, LEFT_SHARD);
    Token[] tokens = tokens(14, 3);
    l0.orderRequest(GLOBAL, LEFT_SHARD, 100, tokens);
    List<Entry> ordered = l0.awaitOrdered(GLOBAL, 3);
    assertThat(l1.awaitOrdered(GLOBAL, 3)).isEqualTo(ordered);

    l1.orderRequest(GLOBAL, LEFT_SHARD, 101, tokens);

    assertThat(RawFrameClient.entries(l1.next(MessageType.ORDER_RESPONSE))).isEqualTo(ordered);
    assertThat(issued(ROOT, "global")).isEqualTo(3.0);
  }

  @Test
  void shouldOrderALeafColorOnItsLeafWithoutTheRoot() throws Exception {
    start(ROOT, topology);
    SequencerNode left = start(LEFT_NODE, topology);
    RawFrameClient l0 = replica(left, 100, LEFT_SHARD);

    l0.orderRequest(LEFT, LEFT_SHARD, 100, tokens(3, 5));

    List<Entry> entries = l0.awaitOrdered(LEFT, 5);
    assertThat(sns(entries))
        .containsExactly(
            Sn.of(left.epoch(), 1),
            Sn.of(left.epoch(), 2),
            Sn.of(left.epoch(), 3),
            Sn.of(left.epoch(), 4),
            Sn.of(left.epoch(), 5));
    assertThat(issued(LEFT_NODE, "left")).isEqualTo(5.0);
    assertThat(meters.find(SequencerMetrics.FORWARDED_BATCHES).counters())
        .allSatisfy(c -> assertThat(c.count()).isZero());
  }

  @Test
  void shouldSendTheGlobalWatermarkToLeafReplicasOnlyAfterTheResponsesItCovers() throws Exception {
    start(ROOT, topology);
    SequencerNode left = start(LEFT_NODE, topology);
    SequencerNode right = start(RIGHT_NODE, topology);
    RawFrameClient l0 = replica(left, 100, LEFT_SHARD);
    RawFrameClient r0 = replica(right, 200, RIGHT_SHARD);

    for (int round = 0; round < 10; round++) {
      l0.orderRequest(GLOBAL, LEFT_SHARD, 100, tokens(10 + round, 3));
      r0.orderRequest(GLOBAL, RIGHT_SHARD, 200, tokens(20 + round, 3));
    }

    // awaitOrdered fails on any response at or below a watermark already received.
    List<Entry> leftEntries = l0.awaitOrdered(GLOBAL, 30);
    List<Entry> rightEntries = r0.awaitOrdered(GLOBAL, 30);
    assertThat(leftEntries).hasSize(30);
    assertThat(rightEntries).hasSize(30);
  }

  @Test
  void shouldAggregateTheRequestsOfOneTurnIntoFewRangeRequests() throws Exception {
    start(ROOT, topology);
    SequencerNode left = start(LEFT_NODE, topology);
    RawFrameClient l0 = replica(left, 100, LEFT_SHARD);
    int requests = 200;

    for (int i = 0; i < requests; i++) {
      l0.write(l0.orderRequestFrame(GLOBAL, LEFT_SHARD, 100, new Token(4, i + 1)));
    }
    l0.flush();

    assertThat(sns(l0.awaitOrdered(GLOBAL, requests))).isSorted().doesNotHaveDuplicates();
    double forwarded = counter(SequencerMetrics.FORWARDED_BATCHES, LEFT_NODE, "global");
    assertThat(forwarded).isBetween(1.0, requests - 1.0);
    var aggregation =
        meters
            .get(SequencerMetrics.AGGREGATION)
            .tags(SequencerMetrics.NODE_TAG, "1", SequencerMetrics.COLOR_TAG, "global")
            .summary();
    assertThat(aggregation.totalAmount()).isEqualTo(requests);
    assertThat(aggregation.count()).isEqualTo((long) forwarded);
    var latency =
        meters
            .get(SequencerMetrics.UPWARD_LATENCY)
            .tags(SequencerMetrics.NODE_TAG, "1", SequencerMetrics.COLOR_TAG, "global")
            .timer();
    assertThat(latency.count()).isEqualTo((long) forwarded);
  }

  @Test
  void shouldIssueLargerSnsWithoutDuplicatesAfterTheRootRestarts() throws Exception {
    SequencerNode root = start(ROOT, topology);
    SequencerNode left = start(LEFT_NODE, topology);
    RawFrameClient l0 = replica(left, 100, LEFT_SHARD);
    l0.orderRequest(GLOBAL, LEFT_SHARD, 100, tokens(5, 4));
    List<Long> before = sns(l0.awaitOrdered(GLOBAL, 4));
    int oldEpoch = root.epoch();

    root.close();
    // Ordered while the root is down: the leaf keeps the request and sends it on reconnect.
    l0.orderRequest(GLOBAL, LEFT_SHARD, 100, tokens(6, 3));
    SequencerNode restarted = start(ROOT, topology);
    l0.orderRequest(GLOBAL, LEFT_SHARD, 100, tokens(7, 3));

    List<Entry> after = l0.awaitOrdered(GLOBAL, 6);
    assertThat(restarted.epoch()).isGreaterThan(oldEpoch);
    assertThat(after)
        .extracting(Entry::token)
        .containsExactlyInAnyOrder(
            new Token(6, 1),
            new Token(6, 2),
            new Token(6, 3),
            new Token(7, 1),
            new Token(7, 2),
            new Token(7, 3));
    assertThat(sns(after)).doesNotHaveDuplicates();
    assertThat(sns(after))
        .allSatisfy(sn -> assertThat(sn).isGreaterThan(before.get(before.size() - 1)))
        .allSatisfy(sn -> assertThat(Sn.epoch(sn)).isEqualTo(restarted.epoch()));
  }

  @Test
  void shouldForwardThroughAnIntermediateNode() throws Exception {
    // global on the root, left on node 1, and "deep" (child of left) on node 2.
    Topology chain =
        new Topology(
            1,
            topology.nodes().values().stream().toList(),
            List.of(
                new Color(GLOBAL, "global", Color.NO_PARENT, ROOT),
                new Color(LEFT, "left", GLOBAL, LEFT_NODE),
                new Color(7, "deep", LEFT, RIGHT_NODE)),
            List.of(new Shard(70, 7, List.of(200, 201))));
    SequencerNode root = start(ROOT, chain);
    SequencerNode middle = start(LEFT_NODE, chain);
    SequencerNode leaf = start(RIGHT_NODE, chain);
    RawFrameClient r0 = replica(leaf, 200, 70);

    r0.orderRequest(GLOBAL, 70, 200, tokens(8, 3));
    assertThat(sns(r0.awaitOrdered(GLOBAL, 3)))
        .containsExactly(Sn.of(root.epoch(), 1), Sn.of(root.epoch(), 2), Sn.of(root.epoch(), 3));
    r0.orderRequest(LEFT, 70, 200, tokens(9, 3));
    assertThat(sns(r0.awaitOrdered(LEFT, 3)))
        .containsExactly(
            Sn.of(middle.epoch(), 1), Sn.of(middle.epoch(), 2), Sn.of(middle.epoch(), 3));
    r0.orderRequest(7, 70, 200, tokens(10, 3));
    assertThat(sns(r0.awaitOrdered(7, 3)))
        .containsExactly(Sn.of(leaf.epoch(), 1), Sn.of(leaf.epoch(), 2), Sn.of(leaf.epoch(), 3));
    assertThat(counter(SequencerMetrics.FORWARDED_BATCHES, LEFT_NODE, "global")).isPositive();
  }

  @Test
  void shouldStartOrderingANewColorAndShardAfterATopologyUpdate() throws Exception {
    SequencerNode root = start(ROOT, topology);
    SequencerNode left = start(LEFT_NODE, topology);
    Topology v2 =
        tree(
            2,
            List.of(new Color(5, "blue", LEFT, LEFT_NODE)),
            List.of(new Shard(50, 5, List.of(300))));

    root.updateTopology(v2);
    left.updateTopology(v2);
    left.updateTopology(topology); // older: ignored

    RawFrameClient blue = replica(left, 300, 50);
    blue.orderRequest(5, 50, 300, tokens(11, 2));
    assertThat(sns(blue.awaitOrdered(5, 2)))
        .containsExactly(Sn.of(left.epoch(), 1), Sn.of(left.epoch(), 2));
    blue.orderRequest(GLOBAL, 50, 300, tokens(12, 2));
    assertThat(sns(blue.awaitOrdered(GLOBAL, 2)))
        .allSatisfy(sn -> assertThat(Sn.epoch(sn)).isEqualTo(root.epoch()));
    assertThat(left.topology().version()).isEqualTo(2);
  }

  @Test
  void shouldSendJoinMarksOfEveryGrownColorDownTheTreeAheadOfLaterWatermarks() throws Exception {
    SequencerNode root = start(ROOT, topology);
    SequencerNode left = start(LEFT_NODE, topology);
    SequencerNode right = start(RIGHT_NODE, topology);
    RawFrameClient old = replica(left, 100, LEFT_SHARD);
    RawFrameClient other = replica(right, 200, RIGHT_SHARD);
    old.orderRequest(GLOBAL, LEFT_SHARD, 100, tokens(21, 3));
    long lastGlobal = sns(old.awaitOrdered(GLOBAL, 3)).get(2);
    old.orderRequest(LEFT, LEFT_SHARD, 100, tokens(22, 2));
    long lastLeft = sns(old.awaitOrdered(LEFT, 2)).get(1);
    Topology v2 =
        tree(
            2,
            List.of(new Color(5, "blue", LEFT, LEFT_NODE)),
            List.of(new Shard(50, 5, List.of(300))));

    root.updateTopology(v2);
    left.updateTopology(v2);
    right.updateTopology(v2);

    // Both colors whose subtree grew mark it: global at the root (descending through the left
    // node's route), left at the left node. Nothing reaches a mark before it.
    java.util.Map<Integer, Long> marks = new java.util.HashMap<>();
    java.util.Map<Integer, Long> watermarks = new java.util.HashMap<>();
    while (marks.size() < 2) {
      ByteBuf frame = old.next();
      byte type = FrameDescriptor.type(frame);
      if (type == MessageType.TOPOLOGY_MARK) {
        int color = io.flexlog.core.protocol.TopologyMarkDescriptor.colorId(frame);
        assertThat(io.flexlog.core.protocol.TopologyMarkDescriptor.topologyVersion(frame))
            .isEqualTo(2);
        marks.put(color, io.flexlog.core.protocol.TopologyMarkDescriptor.markSn(frame));
      } else if (type == MessageType.WATERMARK) {
        watermarks.merge(
            WatermarkDescriptor.colorId(frame), WatermarkDescriptor.watermark(frame), Math::max);
      }
    }
    assertThat(marks)
        .containsOnlyKeys(GLOBAL, LEFT)
        .containsEntry(GLOBAL, lastGlobal + 1)
        .containsEntry(LEFT, lastLeft + 1);
    assertThat(watermarks.getOrDefault(GLOBAL, 0L)).isLessThan(marks.get(GLOBAL));
    assertThat(watermarks.getOrDefault(LEFT, 0L)).isLessThan(marks.get(LEFT));
    // The right subtree did not grow; only global's mark reaches it, through the right node.
    long rightMark = 0;
    while (rightMark == 0) {
      ByteBuf frame = other.next();
      if (FrameDescriptor.type(frame) == MessageType.TOPOLOGY_MARK) {
        assertThat(io.flexlog.core.protocol.TopologyMarkDescriptor.colorId(frame))
            .isEqualTo(GLOBAL);
        rightMark = io.flexlog.core.protocol.TopologyMarkDescriptor.markSn(frame);
      }
    }
    assertThat(rightMark).isEqualTo(marks.get(GLOBAL));

    RawFrameClient blue = replica(left, 300, 50);
    blue.orderRequest(GLOBAL, 50, 300, tokens(23, 2));
    assertThat(sns(blue.awaitOrdered(GLOBAL, 2)))
        .allSatisfy(sn -> assertThat(sn).isGreaterThanOrEqualTo(marks.get(GLOBAL)));
    blue.orderRequest(LEFT, 50, 300, tokens(24, 2));
    assertThat(sns(blue.awaitOrdered(LEFT, 2)))
        .allSatisfy(sn -> assertThat(sn).isGreaterThanOrEqualTo(marks.get(LEFT)));
    assertThat(other.drain()).noneMatch(f -> FrameDescriptor.type(f) == MessageType.TOPOLOGY_MARK);
  }

  @Test
  void shouldRefuseATopologyThatMovesAColor() throws Exception {
    SequencerNode left = start(LEFT_NODE, topology);
    List<Color> moved =
        List.of(
            new Color(GLOBAL, "global", Color.NO_PARENT, ROOT),
            new Color(LEFT, "left", GLOBAL, RIGHT_NODE),
            new Color(RIGHT, "right", GLOBAL, RIGHT_NODE));
    Topology bad =
        new Topology(2, topology.nodes().values().stream().toList(), moved, topology.shards());

    assertThatThrownBy(() -> left.updateTopology(bad))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("color 1 ('left') moves")
        .hasMessageContaining("colors cannot move");
    assertThat(left.topology().version()).isEqualTo(1);
  }

  @Test
  void shouldSendACatchUpWatermarkOfTheForwardedColorToALateReplica() throws Exception {
    start(ROOT, topology);
    SequencerNode left = start(LEFT_NODE, topology);
    RawFrameClient early = replica(left, 100, LEFT_SHARD);
    early.orderRequest(GLOBAL, LEFT_SHARD, 100, tokens(13, 2));
    long last = sns(early.awaitOrdered(GLOBAL, 2)).get(1);

    RawFrameClient late = replica(left, 101, LEFT_SHARD);

    long catchUp = -1;
    while (catchUp < 0) {
      ByteBuf frame = late.next(MessageType.WATERMARK);
      if (WatermarkDescriptor.colorId(frame) == GLOBAL) {
        catchUp = WatermarkDescriptor.watermark(frame);
      }
    }
    assertThat(catchUp).isGreaterThanOrEqualTo(last);
  }

  private double issued(int nodeId, String color) {
    return counter(SequencerMetrics.SNS_ISSUED, nodeId, color);
  }

  private double counter(String name, int nodeId, String color) {
    var counter =
        meters
            .find(name)
            .tags(
                SequencerMetrics.NODE_TAG,
                Integer.toString(nodeId),
                SequencerMetrics.COLOR_TAG,
                color)
            .counter();
    return counter == null ? 0 : counter.count();
  }
}
