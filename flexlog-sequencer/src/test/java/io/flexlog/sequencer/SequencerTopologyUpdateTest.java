package io.flexlog.sequencer;

import static io.flexlog.sequencer.JoinMarkFixture.GLOBAL;
import static io.flexlog.sequencer.JoinMarkFixture.GREEN;
import static io.flexlog.sequencer.JoinMarkFixture.NEW_SHARD;
import static io.flexlog.sequencer.JoinMarkFixture.NODES;
import static io.flexlog.sequencer.JoinMarkFixture.V1;
import static io.flexlog.sequencer.JoinMarkFixture.V2;
import static io.flexlog.sequencer.JoinMarkFixture.orderOneAndJoinV2;
import static io.flexlog.sequencer.JoinMarkFixture.quorumStore;
import static io.flexlog.sequencer.JoinMarkFixture.v2LedBy;
import static io.flexlog.sequencer.RawFrameClient.entries;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.NodeAddress.Kind;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Token;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.MetadataDescriptor;
import io.flexlog.core.protocol.OrderResponseDescriptor;
import io.flexlog.core.protocol.TopologyMarkDescriptor;
import io.flexlog.core.protocol.WatermarkDescriptor;
import io.flexlog.core.util.DurableFiles;
import io.flexlog.sequencer.ordering.JoinMarkStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@link SequencerNode#updateTopology}: roles and shards added to a running node. */
class SequencerTopologyUpdateTest {
  @RegisterExtension static final NodeTestResources OPENED = new NodeTestResources();

  @TempDir Path dataDir;

  private SequencerNode startNode() throws Exception {
    SequencerNode node = newNode(V1);
    node.start();
    return node;
  }

  /** Node 0 on this test's data directory, not started; closed after the test. */
  private SequencerNode newNode(Topology topology) throws Exception {
    return newNode(0, dataDir, topology);
  }

  /** Node {@code nodeId} on {@code dir}, not started; closed after the test. */
  private SequencerNode newNode(int nodeId, Path dir, Topology topology) throws Exception {
    SequencerNode node =
        new SequencerNode(
            SequencerConfig.builder().nodeId(nodeId).dataDir(dir).build(),
            topology,
            new SimpleMeterRegistry());
    OPENED.add(node);
    return node;
  }

  private static void assertGlobalMark(ByteBuf mark, long topologyVersion, long markSn) {
    assertThat(TopologyMarkDescriptor.colorId(mark)).isEqualTo(GLOBAL.id());
    assertThat(TopologyMarkDescriptor.topologyVersion(mark)).isEqualTo(topologyVersion);
    assertThat(TopologyMarkDescriptor.markSn(mark)).isEqualTo(markSn);
  }

  private RawFrameClient connect(SequencerNode node) throws InterruptedException {
    RawFrameClient client = OPENED.connect(node.port());
    return client;
  }

  private static Topology metadata(RawFrameClient client) throws InterruptedException {
    client.send(MetadataDescriptor.encodeRequest(client.alloc(), 7));
    return MetadataDescriptor.decodeResponse(client.next(MessageType.METADATA_RESPONSE)).topology();
  }

  @Test
  void shouldRejectTheNewShardBeforeTheUpdateAndOrderTheNewColorAfterIt() throws Exception {
    SequencerNode node = startNode();
    RawFrameClient before = connect(node);
    before.hello(11, NEW_SHARD);
    ByteBuf refused = before.next(MessageType.ERROR);
    assertThat(ErrorDescriptor.code(refused)).isEqualTo(ErrorCode.UNKNOWN_SHARD);

    node.updateTopology(V2);

    RawFrameClient replica = connect(node);
    replica.hello(11, NEW_SHARD);
    List<Integer> watermarkColors = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      ByteBuf watermark = replica.next(MessageType.WATERMARK);
      watermarkColors.add(WatermarkDescriptor.colorId(watermark));
      assertThat(Sn.epoch(WatermarkDescriptor.watermark(watermark))).isEqualTo(node.epoch());
    }
    assertThat(watermarkColors).containsExactlyInAnyOrder(GLOBAL.id(), GREEN);

    replica.orderRequest(GREEN, NEW_SHARD, 11, new Token(9, 1), new Token(9, 2));
    ByteBuf green = replica.next(MessageType.ORDER_RESPONSE);
    assertThat(OrderResponseDescriptor.colorId(green)).isEqualTo(GREEN);
    assertThat(entries(green))
        .extracting(e -> e.sn())
        .containsExactly(Sn.of(node.epoch(), 1), Sn.of(node.epoch(), 2));

    // The global role learned that the new shard joined its subtree.
    replica.orderRequest(GLOBAL.id(), NEW_SHARD, 11, new Token(9, 3));
    ByteBuf global = nextOfType(replica, MessageType.ORDER_RESPONSE);
    assertThat(OrderResponseDescriptor.colorId(global)).isEqualTo(GLOBAL.id());
    assertThat(OrderResponseDescriptor.shardId(global)).isEqualTo(NEW_SHARD);

    assertThat(metadata(connect(node))).isEqualTo(V2);
    assertThat(node.topology().version()).isEqualTo(2);
  }

  @Test
  void shouldSendTheJoinMarkToTheOldShardsReplicasBehindTheirResponsesAndWatermark()
      throws Exception {
    SequencerNode node = startNode();
    RawFrameClient old = connect(node);
    old.hello(10, 0);
    old.next(MessageType.WATERMARK); // catch-up
    old.orderRequest(GLOBAL.id(), 0, 10, new Token(8, 1), new Token(8, 2));
    List<RawFrameClient.Entry> ordered = old.awaitOrdered(GLOBAL.id(), 2);
    long last = ordered.get(1).sn();

    node.updateTopology(V2);

    ByteBuf mark = old.next(MessageType.TOPOLOGY_MARK);
    assertGlobalMark(mark, 2, last + 1);

    RawFrameClient joined = connect(node);
    joined.hello(11, NEW_SHARD);
    joined.orderRequest(GLOBAL.id(), NEW_SHARD, 11, new Token(9, 1));
    assertThat(joined.awaitOrdered(GLOBAL.id(), 1).get(0).sn()).isEqualTo(last + 1);
    // The old shard's replica learns of that SN through a watermark, after the mark.
    ByteBuf watermark = old.next(MessageType.WATERMARK);
    assertThat(WatermarkDescriptor.watermark(watermark)).isEqualTo(last + 1);
    node.updateTopology(V2); // the same version again: no second mark
    assertThat(old.drain()).isEmpty();

    // A replica of the old shard that reconnects (say, restarted and lost its marks) gets the
    // mark again, ahead of its catch-up watermark; the new shard's replica got none above.
    RawFrameClient restarted = connect(node);
    restarted.hello(10, 0);
    ByteBuf again = restarted.next(MessageType.TOPOLOGY_MARK);
    assertThat(TopologyMarkDescriptor.markSn(again)).isEqualTo(last + 1);
    assertThat(TopologyMarkDescriptor.topologyVersion(again)).isEqualTo(2);
    assertThat(WatermarkDescriptor.watermark(restarted.next(MessageType.WATERMARK)))
        .isEqualTo(last + 1);
  }

  @Test
  void shouldRepeatAJoinMarkAfterTheNodeRestartedOnTheSameDataDirectory() throws Exception {
    SequencerNode node = startNode();
    long last = orderOneAndJoinV2(connect(node), node);

    // Replica 11 was down meanwhile; the restarted process starts from the topology it stored.
    SequencerNode restarted = newNode(V2);
    restarted.start();
    RawFrameClient returning = connect(restarted);
    returning.hello(11, 0);
    ByteBuf mark = returning.next(MessageType.TOPOLOGY_MARK);
    assertGlobalMark(mark, 2, last + 1);
    assertThat(Sn.epoch(WatermarkDescriptor.watermark(returning.next(MessageType.WATERMARK))))
        .isEqualTo(restarted.epoch());
    // The new shard's replica needs none.
    RawFrameClient joined = connect(restarted);
    joined.hello(11, NEW_SHARD);
    assertThat(joined.next())
        .satisfies(f -> assertThat(FrameDescriptor.type(f)).isEqualTo(MessageType.WATERMARK));
  }

  /**
   * With a shared store (the metadata quorum, with failover), the node that takes a role over gets
   * the marks of the node that led it before.
   */
  @Test
  void shouldRepeatTheFormerLeadersJoinMarkOnTheNodeThatTookTheRoleOver() throws Exception {
    Map<Integer, List<JoinMarkStore.Mark>> quorum = new ConcurrentHashMap<>();
    JoinMarkStore shared =
        new JoinMarkStore() {
          @Override
          public List<Mark> load(int colorId) {
            return quorum.getOrDefault(colorId, List.of());
          }

          @Override
          public CompletableFuture<Void> save(int colorId, List<Mark> marks) {
            quorum.merge(colorId, marks, JoinMarkStore::merge);
            return CompletableFuture.completedFuture(null);
          }
        };
    SequencerNode former = newNode(0, dataDir.resolve("node-0"), V1);
    former.sharedJoinMarks(shared);
    former.start();
    long last = orderOneAndJoinV2(connect(former), former);

    // Node 1 takes both roles over (version 3), in a larger role epoch.
    Topology moved =
        new Topology(
            3,
            NODES,
            List.of(
                GLOBAL.withRole(1, former.epoch() + 1),
                new Color(GREEN, "green", GLOBAL.id(), 0).withRole(1, former.epoch() + 1)),
            V2.shards());
    SequencerNode successor = newNode(1, dataDir.resolve("node-1"), moved);
    successor.sharedJoinMarks(shared);
    successor.start();
    RawFrameClient returning = connect(successor);
    returning.hello(11, 0);
    ByteBuf mark = returning.next(MessageType.TOPOLOGY_MARK);
    assertThat(TopologyMarkDescriptor.topologyVersion(mark)).isEqualTo(2);
    assertThat(TopologyMarkDescriptor.markSn(mark)).isEqualTo(last + 1);
    returning.next(MessageType.WATERMARK);
  }

  /** A role issues nothing at or above a mark before the mark is durable where it is kept. */
  @Test
  void shouldHoldOrderingUntilTheJoinMarkIsSaved() throws Exception {
    CompletableFuture<Void> saved = new CompletableFuture<>();
    SequencerNode node = newNode(V1);
    node.sharedJoinMarks(
        new JoinMarkStore() {
          @Override
          public List<Mark> load(int colorId) {
            return List.of();
          }

          @Override
          public CompletableFuture<Void> save(int colorId, List<Mark> marks) {
            return saved;
          }
        });
    node.start();
    RawFrameClient old = connect(node);
    old.hello(10, 0);
    old.next(MessageType.WATERMARK);
    node.updateTopology(V2);
    old.next(MessageType.TOPOLOGY_MARK);
    old.orderRequest(GLOBAL.id(), 0, 10, new Token(8, 1));
    Thread.sleep(300);
    assertThat(old.drain()).as("frames before the mark is saved").isEmpty();
    saved.complete(null);
    assertThat(old.awaitOrdered(GLOBAL.id(), 1)).hasSize(1);
  }

  /**
   * Issue 10's narrow window without failover: the process applied V2 and took the mark, but the
   * file could not be written before it stopped. It issued nothing at or above the mark, so the
   * restarted process takes one again at its own first SN, before it issues anything, and repeats
   * it to the old shard's returning replica.
   */
  @Test
  void shouldTakeTheJoinMarkAgainWhenTheProcessStoppedBeforeItWasSaved() throws Exception {
    SequencerNode node = startNode();
    Path blocked = DurableFiles.tempFile(dataDir.resolve("join-marks"));
    Files.createDirectory(blocked); // the file cannot be replaced: every save fails
    orderOneAndJoinV2(connect(node), node);
    Files.delete(blocked);

    SequencerNode restarted = newNode(V2);
    restarted.start();
    long firstSn = Sn.of(restarted.epoch(), 1);
    RawFrameClient returning = connect(restarted);
    returning.hello(10, 0);
    ByteBuf mark = returning.next(MessageType.TOPOLOGY_MARK);
    assertGlobalMark(mark, 2, firstSn);
    assertThat(WatermarkDescriptor.watermark(returning.next(MessageType.WATERMARK)))
        .isEqualTo(Sn.of(restarted.epoch(), 0));
    assertThat(JoinMarkFile.open(dataDir, 0).load(GLOBAL.id()))
        .as("the mark is in the file")
        .containsExactly(new JoinMarkStore.Mark(2, firstSn, List.of(NEW_SHARD)));
    // The new shard's first record of global is at the mark, and the old replica hears of it only
    // through a watermark, after the mark.
    RawFrameClient joined = connect(restarted);
    joined.hello(11, NEW_SHARD);
    joined.orderRequest(GLOBAL.id(), NEW_SHARD, 11, new Token(9, 1));
    assertThat(joined.awaitOrdered(GLOBAL.id(), 1).get(0).sn()).isEqualTo(firstSn);
    assertThat(WatermarkDescriptor.watermark(returning.next(MessageType.WATERMARK)))
        .isEqualTo(firstSn);
  }

  /**
   * Issue 10's narrow window with failover: the former leader applied V2 and took the mark, but the
   * metadata quorum never committed it. The node that takes the role over finds shard 5 in the
   * subtree without a mark, takes one at its own first SN, saves it, and issues nothing before the
   * save completes.
   */
  @Test
  void shouldTakeTheFormerLeadersUnsavedJoinMarkOnTheNodeThatTookTheRoleOver() throws Exception {
    Map<Integer, List<JoinMarkStore.Mark>> quorum = new ConcurrentHashMap<>();
    SequencerNode former = newNode(0, dataDir.resolve("node-0"), V1);
    former.sharedJoinMarks(quorumStore(quorum, new CompletableFuture<>())); // never commits
    former.start();
    orderOneAndJoinV2(connect(former), former);

    int roleEpoch = former.epoch() + 1;
    Topology moved = v2LedBy(3, 1, roleEpoch);
    CompletableFuture<Void> committed = new CompletableFuture<>();
    SequencerNode successor = newNode(1, dataDir.resolve("node-1"), moved);
    successor.sharedJoinMarks(quorumStore(quorum, committed));
    successor.start();
    long firstSn = Sn.of(roleEpoch, 1);
    RawFrameClient returning = connect(successor);
    returning.hello(10, 0);
    ByteBuf mark = returning.next(MessageType.TOPOLOGY_MARK);
    assertGlobalMark(mark, 3, firstSn);
    assertThat(WatermarkDescriptor.watermark(returning.next(MessageType.WATERMARK)))
        .isEqualTo(Sn.of(roleEpoch, 0));

    RawFrameClient joined = connect(successor);
    joined.hello(11, NEW_SHARD);
    joined.orderRequest(GLOBAL.id(), NEW_SHARD, 11, new Token(9, 1));
    Thread.sleep(300);
    assertThat(joined.drain())
        .as("frames before the mark is committed")
        .noneMatch(f -> FrameDescriptor.type(f) == MessageType.ORDER_RESPONSE);
    committed.complete(null);
    assertThat(quorum.get(GLOBAL.id()))
        .containsExactly(new JoinMarkStore.Mark(3, firstSn, List.of(NEW_SHARD)));
    assertThat(joined.awaitOrdered(GLOBAL.id(), 1).get(0).sn()).isEqualTo(firstSn);
    assertThat(WatermarkDescriptor.watermark(returning.next(MessageType.WATERMARK)))
        .isEqualTo(firstSn);
  }

  @Test
  void shouldIgnoreATopologyThatIsNotNewer() throws Exception {
    SequencerNode node = startNode();
    node.updateTopology(V2);
    Topology olderWithOtherContent =
        new Topology(
            1,
            NODES,
            List.of(GLOBAL, new Color(4, "stale", GLOBAL.id(), 0)),
            List.of(new Shard(0, GLOBAL.id(), List.of(10, 11))));
    node.updateTopology(olderWithOtherContent);
    node.updateTopology(V2);

    RawFrameClient client = connect(node);
    assertThat(metadata(client)).isEqualTo(V2);
    client.orderRequest(4, 0, 10, new Token(1, 1));
    assertThat(ErrorDescriptor.code(client.next(MessageType.ERROR)))
        .isEqualTo(ErrorCode.UNKNOWN_COLOR);
  }

  @Test
  void shouldStartWithTheUpdatedTopologyWhenUpdatedBeforeStart() throws Exception {
    SequencerNode node = newNode(V1);
    node.updateTopology(V2);
    node.start();

    RawFrameClient replica = connect(node);
    replica.orderRequest(GREEN, NEW_SHARD, 11, new Token(3, 1));
    ByteBuf response = nextOfType(replica, MessageType.ORDER_RESPONSE);
    assertThat(OrderResponseDescriptor.colorId(response)).isEqualTo(GREEN);
  }

  @Test
  void shouldRefuseATopologyWithoutThisSequencerNode() throws Exception {
    SequencerNode node = startNode();
    Topology withoutNode0 =
        new Topology(
            3,
            List.of(
                new NodeAddress(1, Kind.SEQUENCER, "127.0.0.1", 0),
                new NodeAddress(10, Kind.REPLICA, "127.0.0.1", 0)),
            List.of(new Color(Color.GLOBAL_ID, "global", Color.NO_PARENT, 1)),
            List.of());

    assertThatThrownBy(() -> node.updateTopology(withoutNode0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("node 0 is not a sequencer node in topology version 3");
  }

  private static ByteBuf nextOfType(RawFrameClient client, byte type) throws InterruptedException {
    while (true) {
      ByteBuf frame = client.next();
      if (FrameDescriptor.type(frame) == type) {
        return frame;
      }
    }
  }
}
