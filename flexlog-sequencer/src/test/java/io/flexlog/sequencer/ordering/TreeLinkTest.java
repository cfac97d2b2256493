package io.flexlog.sequencer.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.NodeAddress.Kind;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.FrameDecoder;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.HelloDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.OrderRequestDescriptor;
import io.flexlog.core.protocol.OrderResponseDescriptor;
import io.flexlog.core.protocol.RangeRequestDescriptor;
import io.flexlog.core.protocol.RangeResponseDescriptor;
import io.flexlog.core.protocol.TreeWatermarkDescriptor;
import io.flexlog.core.protocol.WatermarkDescriptor;
import io.flexlog.sequencer.net.SequencerChannelHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Scripted, deterministic runs of one leaf node and its root over links the test controls frame by
 * frame: what happens to a range request when the link between them breaks.
 */
class TreeLinkTest {
  private static final int GLOBAL = Color.GLOBAL_ID;
  private static final int LEFT = 1;
  private static final int SHARD = 10;
  private static final int REPLICA = 100;
  private static final Topology TOPOLOGY =
      new Topology(
          1,
          List.of(
              new NodeAddress(0, Kind.SEQUENCER, "127.0.0.1", 7000),
              new NodeAddress(1, Kind.SEQUENCER, "127.0.0.1", 7001),
              new NodeAddress(REPLICA, Kind.REPLICA, "127.0.0.1", 7002)),
          List.of(
              new Color(GLOBAL, "global", Color.NO_PARENT, 0), new Color(LEFT, "left", GLOBAL, 1)),
          List.of(new Shard(SHARD, LEFT, List.of(REPLICA))));

  /** Version 2 adds color "right" under global on the leaf node, with shard 20. */
  private static final Topology GROWN =
      new Topology(
          2,
          List.of(
              new NodeAddress(0, Kind.SEQUENCER, "127.0.0.1", 7000),
              new NodeAddress(1, Kind.SEQUENCER, "127.0.0.1", 7001),
              new NodeAddress(REPLICA, Kind.REPLICA, "127.0.0.1", 7002),
              new NodeAddress(REPLICA + 1, Kind.REPLICA, "127.0.0.1", 7003)),
          List.of(
              new Color(GLOBAL, "global", Color.NO_PARENT, 0),
              new Color(LEFT, "left", GLOBAL, 1),
              new Color(2, "right", GLOBAL, 1)),
          List.of(
              new Shard(SHARD, LEFT, List.of(REPLICA)), new Shard(20, 2, List.of(REPLICA + 1))));

  private final List<long[]> issued = new ArrayList<>();
  private final List<ByteBuf> toRelease = new ArrayList<>();

  @AfterEach
  void release() {
    toRelease.forEach(ByteBuf::release);
  }

  /** One node: the production service with a task queue as its event loop. */
  private final class Node implements NodeRuntime {
    final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    final OrderingService service;

    Node(int nodeId, int epoch) {
      int[] durable = {epoch};
      service =
          new OrderingService(
              nodeId,
              epoch,
              TOPOLOGY,
              1024,
              Sn.MAX_COUNTER,
              new NodeEpochs() {
                @Override
                public int current() {
                  return durable[0];
                }

                @Override
                public int advance() {
                  return ++durable[0];
                }
              },
              new SequencerMetrics(new SimpleMeterRegistry(), nodeId, () -> durable[0]),
              UnpooledByteBufAllocator.DEFAULT,
              this,
              (color, first, count) -> issued.add(new long[] {color, first, count}));
      service.start();
    }

    void endTurn() {
      while (!tasks.isEmpty()) {
        tasks.poll().run();
      }
    }

    @Override
    public void execute(Runnable task) {
      tasks.add(task);
    }

    @Override
    public void schedule(Runnable task, long delayMs) {
      throw new AssertionError("no timers expected");
    }

    @Override
    public long nanoTime() {
      return 0;
    }

    @Override
    public void connectParent(int parentNodeId) {}
  }

  /** A link's sending side that keeps what was flushed, in order. */
  private final class Pipe implements Outbound {
    final ArrayDeque<ByteBuf> flushed = new ArrayDeque<>();
    private final List<ByteBuf> pending = new ArrayList<>();

    @Override
    public void write(ByteBuf frame) {
      pending.add(frame);
    }

    @Override
    public void flush() {
      flushed.addAll(pending);
      pending.clear();
    }

    @Override
    public void close() {}

    ByteBuf take() {
      ByteBuf frame = flushed.poll();
      assertThat(frame).as("a flushed frame").isNotNull();
      toRelease.add(frame);
      return frame;
    }
  }

  /** A connection from the leaf to the root: the root's end runs the production handler. */
  private final class Uplink {
    final Pipe up = new Pipe();
    final EmbeddedChannel rootEnd;
    final PeerLink leafEnd;

    Uplink(Node leaf, Node root) {
      rootEnd =
          new EmbeddedChannel(
              new FrameDecoder(1 << 20),
              new SequencerChannelHandler(
                  new SequencerInbound(root.service, UnpooledByteBufAllocator.DEFAULT, 1 << 20)));
      leafEnd = leaf.service.onParentConnected(0, up);
    }

    /** Delivers every frame the leaf flushed to the root. */
    void deliverUp() {
      while (!up.flushed.isEmpty()) {
        rootEnd.writeInbound(up.flushed.poll());
      }
    }

    /** The next frame the root flushed towards the leaf, not yet delivered. */
    ByteBuf nextDown() {
      ByteBuf frame = rootEnd.readOutbound();
      assertThat(frame).as("a frame from the root").isNotNull();
      toRelease.add(frame);
      return frame;
    }

    void deliverDown(Node leaf, ByteBuf frame) {
      leaf.service.onParentFrame(leafEnd, frame);
    }

    /** The connection breaks: whatever is in flight is lost. */
    void drop(Node leaf) {
      up.flushed.forEach(ByteBuf::release);
      up.flushed.clear();
      rootEnd.finishAndReleaseAll();
      leaf.service.onParentClosed(leafEnd);
    }
  }

  private Pipe replica(Node leaf) {
    Pipe pipe = new Pipe();
    PeerLink link = leaf.service.onConnected(pipe);
    ByteBuf hello =
        HelloDescriptor.encode(UnpooledByteBufAllocator.DEFAULT, REPLICA, new int[] {SHARD});
    assertThat(leaf.service.onHello(link, hello)).isNull();
    hello.release();
    ByteBuf request =
        OrderRequestDescriptor.encodeHeader(
            UnpooledByteBufAllocator.DEFAULT, GLOBAL, SHARD, REPLICA, 2);
    OrderRequestDescriptor.writeToken(request, 5, 1);
    OrderRequestDescriptor.writeToken(request, 5, 2);
    assertThat(leaf.service.onOrderRequest(link, request)).isNull();
    request.release();
    leaf.endTurn();
    assertThat(type(pipe.take())).isEqualTo(MessageType.WELCOME);
    assertThat(type(pipe.take())).isEqualTo(MessageType.WATERMARK);
    return pipe;
  }

  private static byte type(ByteBuf frame) {
    return FrameDescriptor.type(frame);
  }

  /** The leaf sent its range request up and the root answered; the answer is lost. */
  private Uplink orderAndLoseTheAnswer(Node root, Node leaf) {
    Uplink first = new Uplink(leaf, root);
    leaf.endTurn();
    first.deliverUp();
    root.endTurn();
    ByteBuf catchUp = first.nextDown();
    assertThat(type(catchUp)).isEqualTo(MessageType.TREE_WATERMARK);
    assertThat(TreeWatermarkDescriptor.watermark(catchUp)).isEqualTo(Sn.of(3, 0));
    assertThat(type(first.nextDown())).isEqualTo(MessageType.RANGE_RESPONSE);
    first.drop(leaf);
    return first;
  }

  @Test
  void shouldAnswerAResentRequestWithTheSameRangeAndHoldTheWatermarkUntilThen() {
    Node root = new Node(0, 3);
    Node leaf = new Node(1, 1);
    Pipe replica = replica(leaf);
    orderAndLoseTheAnswer(root, leaf);

    Uplink second = new Uplink(leaf, root);
    leaf.endTurn();
    second.deliverUp();
    root.endTurn();

    ByteBuf catchUp = second.nextDown();
    assertThat(type(catchUp)).isEqualTo(MessageType.TREE_WATERMARK);
    assertThat(TreeWatermarkDescriptor.watermark(catchUp)).isEqualTo(Sn.of(3, 2));
    second.deliverDown(leaf, catchUp);
    leaf.endTurn();
    assertThat(replica.flushed).as("the watermark waits for the re-sent request").isEmpty();

    ByteBuf again = second.nextDown();
    assertThat(type(again)).isEqualTo(MessageType.RANGE_RESPONSE);
    assertThat(FrameDescriptor.requestId(again)).isEqualTo(1);
    assertThat(RangeResponseDescriptor.firstSn(again)).isEqualTo(Sn.of(3, 1));
    second.deliverDown(leaf, again);
    leaf.endTurn();
    ByteBuf response = replica.take();
    assertThat(type(response)).isEqualTo(MessageType.ORDER_RESPONSE);
    assertThat(OrderResponseDescriptor.sn(response, 0)).isEqualTo(Sn.of(3, 1));
    assertThat(OrderResponseDescriptor.sn(response, 1)).isEqualTo(Sn.of(3, 2));
    ByteBuf watermark = replica.take();
    assertThat(type(watermark)).isEqualTo(MessageType.WATERMARK);
    assertThat(WatermarkDescriptor.watermark(watermark)).isEqualTo(Sn.of(3, 2));
    assertThat(issued).as("one range, issued once").hasSize(1);
  }

  @Test
  void shouldGiveAResentRequestAFreshRangeInTheNewEpochAfterTheParentRestarts() {
    Node root = new Node(0, 3);
    Node leaf = new Node(1, 1);
    Pipe replica = replica(leaf);
    orderAndLoseTheAnswer(root, leaf);

    Node restarted = new Node(0, 4);
    Uplink second = new Uplink(leaf, restarted);
    leaf.endTurn();
    second.deliverUp();
    restarted.endTurn();

    ByteBuf catchUp = second.nextDown();
    assertThat(TreeWatermarkDescriptor.watermark(catchUp)).isEqualTo(Sn.of(4, 0));
    second.deliverDown(leaf, catchUp);
    ByteBuf answer = second.nextDown();
    assertThat(RangeResponseDescriptor.firstSn(answer)).isEqualTo(Sn.of(4, 1));
    second.deliverDown(leaf, answer);
    leaf.endTurn();
    ByteBuf response = replica.take();
    assertThat(OrderResponseDescriptor.sn(response, 0)).isEqualTo(Sn.of(4, 1));
    assertThat(OrderResponseDescriptor.sn(response, 1)).isEqualTo(Sn.of(4, 2));
    assertThat(WatermarkDescriptor.watermark(replica.take())).isEqualTo(Sn.of(4, 0));
    second.deliverDown(leaf, second.nextDown());
    leaf.endTurn();
    assertThat(WatermarkDescriptor.watermark(replica.take())).isEqualTo(Sn.of(4, 2));
  }

  @Test
  void shouldNotMistakeTheRequestsOfARestartedChildForResentOnes() {
    Node root = new Node(0, 3);
    Node leaf = new Node(1, 1);
    replica(leaf);
    orderAndLoseTheAnswer(root, leaf);

    Node restartedLeaf = new Node(1, 2);
    Pipe replica = replica(restartedLeaf);
    Uplink second = new Uplink(restartedLeaf, root);
    restartedLeaf.endTurn();
    ByteBuf request = second.up.flushed.peekLast();
    assertThat(FrameDescriptor.requestId(request)).isEqualTo(1);
    assertThat(RangeRequestDescriptor.count(request)).isEqualTo(2);
    second.deliverUp();
    root.endTurn();

    second.deliverDown(restartedLeaf, second.nextDown());
    ByteBuf answer = second.nextDown();
    assertThat(RangeResponseDescriptor.firstSn(answer)).isEqualTo(Sn.of(3, 3));
    second.deliverDown(restartedLeaf, answer);
    restartedLeaf.endTurn();
    assertThat(OrderResponseDescriptor.sn(replica.take(), 0)).isEqualTo(Sn.of(3, 3));
  }

  /**
   * A new color adds a new edge between two connected nodes. Whichever of them applies the newer
   * topology first, the new color's replicas get the ancestor's watermark without waiting for its
   * next batch.
   */
  private void assertNewEdgeGetsTheWatermark(boolean parentFirst) {
    Node root = new Node(0, 3);
    Node leaf = new Node(1, 1);
    replica(leaf);
    Uplink link = new Uplink(leaf, root);
    leaf.endTurn();
    link.deliverUp();
    root.endTurn();
    ByteBuf frame;
    while ((frame = link.rootEnd.readOutbound()) != null) {
      toRelease.add(frame);
      link.deliverDown(leaf, frame);
    }
    leaf.endTurn();

    Node first = parentFirst ? root : leaf;
    Node second = parentFirst ? leaf : root;
    first.service.updateTopology(GROWN);
    first.endTurn();
    second.service.updateTopology(GROWN);
    second.endTurn();
    for (int i = 0; i < 2; i++) {
      link.deliverUp();
      root.endTurn();
      while ((frame = link.rootEnd.readOutbound()) != null) {
        toRelease.add(frame);
        link.deliverDown(leaf, frame);
      }
      leaf.endTurn();
    }

    Pipe right = new Pipe();
    PeerLink rightLink = leaf.service.onConnected(right);
    ByteBuf hello =
        HelloDescriptor.encode(UnpooledByteBufAllocator.DEFAULT, REPLICA + 1, new int[] {20});
    assertThat(leaf.service.onHello(rightLink, hello)).isNull();
    hello.release();
    leaf.endTurn();
    long global = -1;
    while (!right.flushed.isEmpty()) {
      ByteBuf w = right.take();
      if (WatermarkDescriptor.colorId(w) == GLOBAL) {
        global = WatermarkDescriptor.watermark(w);
      }
    }
    assertThat(global).isEqualTo(Sn.of(3, 2));
  }

  @Test
  void shouldSendTheWatermarkDownANewEdgeWhenTheParentLearnsOfItFirst() {
    assertNewEdgeGetsTheWatermark(true);
  }

  @Test
  void shouldSendTheWatermarkDownANewEdgeWhenTheChildLearnsOfItFirst() {
    assertNewEdgeGetsTheWatermark(false);
  }
}
