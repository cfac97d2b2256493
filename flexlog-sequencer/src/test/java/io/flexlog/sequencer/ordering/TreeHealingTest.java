package io.flexlog.sequencer.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.NodeAddress.Kind;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.HelloDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.OrderRequestDescriptor;
import io.flexlog.core.protocol.OrderResponseDescriptor;
import io.flexlog.core.protocol.RangeRequestDescriptor;
import io.flexlog.core.protocol.TreeWatermarkDescriptor;
import io.flexlog.core.protocol.WatermarkDescriptor;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The tree heals (docs/architecture.md#sequencer-failover): the role of {@code global} fails over
 * from node 0 while the leaf node 1, which hosts its child color {@code left}, has a range request
 * for {@code global} outstanding there. Scripted frame by frame over links the test controls.
 */
class TreeHealingTest {
  private static final int GLOBAL = Color.GLOBAL_ID;
  private static final int LEFT = 1;
  private static final int SHARD = 10;
  private static final int REPLICA = 100;

  private final List<ByteBuf> toRelease = new ArrayList<>();

  @AfterEach
  void release() {
    toRelease.forEach(ByteBuf::release);
  }

  /** Version {@code version}: global on {@code globalNode} in role epoch {@code globalEpoch}. */
  private static Topology topology(long version, int globalNode, int globalEpoch) {
    return topology(version, globalNode, globalEpoch, 1, 1);
  }

  private static Topology topology(
      long version, int globalNode, int globalEpoch, int leftNode, int leftEpoch) {
    return new Topology(
        version,
        List.of(
            new NodeAddress(0, Kind.SEQUENCER, "127.0.0.1", 7000),
            new NodeAddress(1, Kind.SEQUENCER, "127.0.0.1", 7001),
            new NodeAddress(2, Kind.SEQUENCER, "127.0.0.1", 7002),
            new NodeAddress(REPLICA, Kind.REPLICA, "127.0.0.1", 7003)),
        List.of(
            new Color(GLOBAL, "global", Color.NO_PARENT, globalNode, globalEpoch),
            new Color(LEFT, "left", GLOBAL, leftNode, leftEpoch)),
        List.of(new Shard(SHARD, LEFT, List.of(REPLICA))));
  }

  private static final Topology BEFORE = topology(1, 0, 1);

  /** One node: the production service with a task queue as its event loop. */
  private final class Node implements NodeRuntime {
    final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    final List<Integer> parentsAsked = new ArrayList<>();
    final OrderingService service;

    Node(int nodeId, int epoch, Topology topology) {
      int[] durable = {epoch};
      service =
          new OrderingService(
              nodeId,
              epoch,
              topology,
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
              null);
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
      // Retries of refused requests: not needed by these scripts.
    }

    @Override
    public long nanoTime() {
      return 0;
    }

    @Override
    public void connectParent(int parentNodeId) {
      parentsAsked.add(parentNodeId);
    }
  }

  /** A link's sending side: what was flushed, cut into frames as the receiving end does. */
  private final class Pipe implements Outbound {
    final ArrayDeque<ByteBuf> flushed = new ArrayDeque<>();
    private final List<ByteBuf> pending = new ArrayList<>();

    @Override
    public void write(ByteBuf frame) {
      pending.add(frame);
    }

    @Override
    public void flush() {
      for (ByteBuf buf : pending) {
        ByteBuf copy = Unpooled.copiedBuffer(buf);
        buf.release();
        toRelease.add(copy);
        flushed.add(copy);
      }
      pending.clear();
    }

    @Override
    public void close() {}

    ByteBuf take() {
      ByteBuf frame = flushed.poll();
      assertThat(frame).as("a flushed frame").isNotNull();
      return frame;
    }

    /** Every flushed frame of {@code type}, taken; the others are dropped. */
    List<ByteBuf> takeAll(byte type) {
      List<ByteBuf> frames = new ArrayList<>();
      while (!flushed.isEmpty()) {
        ByteBuf frame = flushed.poll();
        if (FrameDescriptor.type(frame) == type) {
          frames.add(frame);
        }
      }
      return frames;
    }
  }

  /** A connection from {@code child} to {@code parent}, delivered by hand in both directions. */
  private final class Uplink {
    final Pipe up = new Pipe();
    final Pipe down = new Pipe();
    final Node child;
    final Node parent;
    final PeerLink childEnd;
    final PeerLink parentEnd;
    final SequencerInbound parentInbound;

    Uplink(Node child, int parentNodeId, Node parent) {
      this.child = child;
      this.parent = parent;
      parentInbound =
          new SequencerInbound(parent.service, UnpooledByteBufAllocator.DEFAULT, 1 << 20);
      parentEnd = parentInbound.onConnected(down);
      childEnd = child.service.onParentConnected(parentNodeId, up);
    }

    /** Delivers every frame the child flushed to the parent and ends the parent's turn. */
    void deliverUp() {
      while (!up.flushed.isEmpty()) {
        assertThat(parentInbound.onFrame(parentEnd, up.flushed.poll())).isNull();
      }
      parent.endTurn();
    }

    void deliverDown(ByteBuf frame) {
      child.service.onParentFrame(childEnd, frame);
      child.endTurn();
    }

    /** Every frame the parent flushed towards the child, in order, not yet delivered. */
    List<ByteBuf> pendingDown() {
      List<ByteBuf> frames = new ArrayList<>(down.flushed);
      down.flushed.clear();
      return frames;
    }
  }

  /** A replica of shard 10 on the leaf; it asks for two SNs of global (role epoch of left: 1). */
  private Pipe replicaAsksForGlobal(Node leaf) {
    Pipe pipe = new Pipe();
    askForGlobal(leaf, helloFromReplica(leaf, pipe), 2);
    // WELCOME and the catch-up watermarks go; answers of a role here stay.
    pipe.flushed.removeIf(f -> FrameDescriptor.type(f) != MessageType.ORDER_RESPONSE);
    return pipe;
  }

  /** The leaf's request for global reached node 0, which ordered it; the answer is still held. */
  private Uplink orderAtTheFormerParent(Node root, Node leaf) {
    Uplink toRoot = new Uplink(leaf, 0, root);
    leaf.endTurn();
    toRoot.deliverUp();
    return toRoot;
  }

  private static List<Long> sns(List<ByteBuf> responses) {
    List<Long> sns = new ArrayList<>();
    for (ByteBuf response : responses) {
      for (int i = 0; i < OrderResponseDescriptor.count(response); i++) {
        sns.add(OrderResponseDescriptor.sn(response, i));
      }
    }
    return sns;
  }

  @Test
  void shouldResendAnUnansweredRequestToTheNewLeaderOfTheParentRoleAndDropTheFormerOnesAnswer() {
    Node root = new Node(0, 1, BEFORE);
    Node leaf = new Node(1, 1, BEFORE);
    Pipe replica = replicaAsksForGlobal(leaf);
    Uplink toRoot = orderAtTheFormerParent(root, leaf);
    List<ByteBuf> lateFromRoot = toRoot.pendingDown();
    assertThat(lateFromRoot).extracting(FrameDescriptor::type).contains(MessageType.RANGE_RESPONSE);

    Topology moved = topology(2, 2, 5);
    Node backup = new Node(2, 3, moved);
    leaf.service.updateTopology(moved);
    leaf.endTurn();
    assertThat(leaf.parentsAsked).contains(2);
    Uplink toBackup = new Uplink(leaf, 2, backup);
    leaf.endTurn();
    List<ByteBuf> requests = new ArrayList<>(toBackup.up.flushed);
    toBackup.deliverUp();
    assertThat(requests)
        .filteredOn(f -> FrameDescriptor.type(f) == MessageType.RANGE_REQUEST)
        .singleElement()
        .satisfies(f -> assertThat(RangeRequestDescriptor.count(f)).isEqualTo(2));

    // The former parent's answer and watermark come late: dropped, since node 0 no longer leads.
    for (ByteBuf frame : lateFromRoot) {
      toRoot.deliverDown(frame);
    }
    assertThat(replica.takeAll(MessageType.ORDER_RESPONSE)).isEmpty();

    for (ByteBuf frame : toBackup.pendingDown()) {
      toBackup.deliverDown(frame);
    }
    List<ByteBuf> responses = new ArrayList<>();
    List<Long> watermarks = new ArrayList<>();
    for (ByteBuf frame : new ArrayList<>(replica.flushed)) {
      if (FrameDescriptor.type(frame) == MessageType.ORDER_RESPONSE) {
        responses.add(frame);
      } else if (FrameDescriptor.type(frame) == MessageType.WATERMARK
          && WatermarkDescriptor.colorId(frame) == GLOBAL) {
        watermarks.add(WatermarkDescriptor.watermark(frame));
      }
    }
    assertThat(sns(responses)).containsExactly(Sn.of(5, 1), Sn.of(5, 2));
    assertThat(watermarks).isNotEmpty().allMatch(w -> Sn.epoch(w) == 5);
  }

  @Test
  void shouldTakeNoWatermarkFromTheFormerParentAfterTheMove() {
    Node root = new Node(0, 1, BEFORE);
    Node leaf = new Node(1, 1, BEFORE);
    Pipe replica = replicaAsksForGlobal(leaf);
    Uplink toRoot = orderAtTheFormerParent(root, leaf);
    List<ByteBuf> late = toRoot.pendingDown();

    leaf.service.updateTopology(topology(2, 2, 5));
    leaf.endTurn();
    replica.flushed.clear();
    for (ByteBuf frame : late) {
      if (FrameDescriptor.type(frame) == MessageType.TREE_WATERMARK) {
        assertThat(TreeWatermarkDescriptor.colorId(frame)).isEqualTo(GLOBAL);
        toRoot.deliverDown(frame);
      }
    }
    assertThat(replica.flushed).as("nothing of the former parent reaches the replica").isEmpty();
  }

  @Test
  void shouldOrderTheUnansweredTokensWithTheLocalRoleWhenTheChildNodeTakesTheParentRole() {
    Node root = new Node(0, 1, BEFORE);
    Node leaf = new Node(1, 1, BEFORE);
    Pipe replica = replicaAsksForGlobal(leaf);
    Uplink toRoot = orderAtTheFormerParent(root, leaf);
    List<ByteBuf> late = toRoot.pendingDown();

    leaf.service.updateTopology(topology(2, 1, 5));
    leaf.endTurn();
    assertThat(sns(replica.takeAll(MessageType.ORDER_RESPONSE)))
        .containsExactly(Sn.of(5, 1), Sn.of(5, 2));
    for (ByteBuf frame : late) {
      toRoot.deliverDown(frame);
    }
    assertThat(replica.takeAll(MessageType.ORDER_RESPONSE))
        .as("the former parent's answer is dropped")
        .isEmpty();
  }

  /**
   * The failover simulation's seeds 15000118 and 16000847: a replica's request for a token that the
   * leaf's route was answered already, sent before the answer reached the replica, arrives after
   * the leaf took the parent role itself. The role must give it the route's SN again, not a second
   * one.
   */
  @Test
  void shouldAnswerALateDuplicateWithTheRoutesSnWhenTheChildNodeTakesTheParentRole() {
    Node root = new Node(0, 1, BEFORE);
    Node leaf = new Node(1, 1, BEFORE);
    Pipe replica = new Pipe();
    PeerLink link = helloFromReplica(leaf, replica);
    askForGlobal(leaf, link, 2);
    Uplink toRoot = orderAtTheFormerParent(root, leaf);
    for (ByteBuf frame : toRoot.pendingDown()) {
      toRoot.deliverDown(frame);
    }
    assertThat(sns(replica.takeAll(MessageType.ORDER_RESPONSE)))
        .containsExactly(Sn.of(1, 1), Sn.of(1, 2));

    leaf.service.updateTopology(topology(2, 1, 5));
    leaf.endTurn();
    askForGlobal(leaf, link, 2); // sent before the answer came, delivered after the move

    assertThat(sns(replica.takeAll(MessageType.ORDER_RESPONSE)))
        .as("the SNs the route was given, not new ones of the role")
        .containsExactly(Sn.of(1, 1), Sn.of(1, 2));
  }

  /** As above when the parent role leaves the node: the route that now climbs to it keeps them. */
  @Test
  void shouldAnswerALateDuplicateWithTheRolesSnWhenTheParentRoleLeavesTheNode() {
    Node leaf = new Node(1, 1, topology(1, 1, 1));
    Pipe replica = new Pipe();
    PeerLink link = helloFromReplica(leaf, replica);
    askForGlobal(leaf, link, 2);
    assertThat(sns(replica.takeAll(MessageType.ORDER_RESPONSE)))
        .containsExactly(Sn.of(1, 1), Sn.of(1, 2));

    Uplink toBackup = moveGlobalToNode2(leaf);
    askForGlobal(leaf, link, 2);
    toBackup.deliverUp();
    for (ByteBuf frame : toBackup.pendingDown()) {
      toBackup.deliverDown(frame);
    }

    assertThat(sns(replica.takeAll(MessageType.ORDER_RESPONSE)))
        .as("the SNs the role gave here, not new ones of the new leader")
        .containsExactly(Sn.of(1, 1), Sn.of(1, 2));
  }

  /** Global moves to node 2 in role epoch 5; the leaf applies that and connects to node 2. */
  private Uplink moveGlobalToNode2(Node leaf) {
    Topology moved = topology(2, 2, 5);
    Node backup = new Node(2, 3, moved);
    leaf.service.updateTopology(moved);
    leaf.endTurn();
    Uplink toBackup = new Uplink(leaf, 2, backup);
    leaf.endTurn();
    return toBackup;
  }

  /** The replica of shard 10 connects to {@code leaf} over {@code pipe} and says HELLO. */
  private static PeerLink helloFromReplica(Node leaf, Pipe pipe) {
    PeerLink link = leaf.service.onConnected(pipe);
    ByteBuf hello =
        HelloDescriptor.encode(UnpooledByteBufAllocator.DEFAULT, REPLICA, new int[] {SHARD});
    assertThat(leaf.service.onHello(link, hello)).isNull();
    hello.release();
    return link;
  }

  /** The replica asks for tokens (5, 1) to (5, {@code count}) of global on its link to the leaf. */
  private void askForGlobal(Node leaf, PeerLink link, int count) {
    ByteBuf request =
        OrderRequestDescriptor.encodeHeader(
            UnpooledByteBufAllocator.DEFAULT, 1, GLOBAL, SHARD, REPLICA, count);
    for (int i = 1; i <= count; i++) {
      OrderRequestDescriptor.writeToken(request, 5, i);
    }
    assertThat(leaf.service.onOrderRequest(link, request)).isNull();
    request.release();
    leaf.endTurn();
  }

  @Test
  void shouldOrderAForwardedColorForARequestNamingTheRoleEpochOfTheShardsColor() {
    // Node 1 leads global in role epoch 5 and left in role epoch 1: a request for global from a
    // replica of left names left's epoch 1 and is not stale.
    Node leaf = new Node(1, 1, topology(2, 1, 5));
    Pipe replica = replicaAsksForGlobal(leaf);
    assertThat(sns(replica.takeAll(MessageType.ORDER_RESPONSE)))
        .containsExactly(Sn.of(5, 1), Sn.of(5, 2));
  }

  @Test
  void shouldRefuseARequestForAnAncestorFromAShardWhoseColorIsLedElsewhere() {
    // Node 1 leads global, but left moved to node 2: a replica with an older topology still asks
    // node 1 for global. Ordered here, its tokens would get SNs that node 2 asks for again.
    Node node = new Node(1, 3, topology(3, 1, 5, 2, 4));
    Pipe pipe = new Pipe();
    PeerLink link = node.service.onConnected(pipe);
    ByteBuf request =
        OrderRequestDescriptor.encodeHeader(
            UnpooledByteBufAllocator.DEFAULT, 1, GLOBAL, SHARD, REPLICA, 1);
    OrderRequestDescriptor.writeToken(request, 5, 1);
    Rejection rejection = node.service.onOrderRequest(link, request);
    request.release();
    node.endTurn();
    assertThat(rejection).isNotNull();
    assertThat(rejection.code()).isEqualTo(ErrorCode.UNKNOWN_COLOR);
    assertThat(rejection.message()).contains("sequencer node 2");
    assertThat(pipe.takeAll(MessageType.ORDER_RESPONSE)).isEmpty();
  }

  @Test
  void shouldWriteNoWatermarkToAReplicaOfAShardWhoseColorLeftThisNode() {
    // Node 1 leads global and led left, which moved to node 2. A replica on an older topology
    // still says HELLO to node 1 for shard 10 of left: global's SNs of that shard now come through
    // node 2, so a watermark of global from here would make it call them holes (seed 16101710 of
    // the failover simulation, docs/architecture.md#fencing).
    Node node = new Node(1, 3, topology(2, 1, 5, 1, 1));
    Pipe before = new Pipe();
    helloFromReplica(node, before);
    node.endTurn();
    assertThat(before.takeAll(MessageType.WATERMARK)).as("while node 1 leads left").isNotEmpty();

    node.service.updateTopology(topology(3, 1, 5, 2, 4));
    node.endTurn();
    Pipe after = new Pipe();
    helloFromReplica(node, after);
    node.endTurn();
    assertThat(after.takeAll(MessageType.WATERMARK)).isEmpty();
  }

  @Test
  void shouldRefuseTheChildRequestsOfARoleThatLeftSoTheChildRetriesElsewhere() {
    Node root = new Node(0, 1, BEFORE);
    Node leaf = new Node(1, 1, BEFORE);
    replicaAsksForGlobal(leaf);
    Uplink toRoot = new Uplink(leaf, 0, root);
    leaf.endTurn();
    // The root's role has no lease: the child's range request waits in its batch.
    root.service.issueGate((colorId, epoch) -> false);
    toRoot.deliverUp();
    assertThat(toRoot.pendingDown())
        .extracting(FrameDescriptor::type)
        .doesNotContain(MessageType.RANGE_RESPONSE);

    root.service.updateTopology(topology(2, 2, 5));
    root.endTurn();
    List<ByteBuf> down = toRoot.pendingDown();
    assertThat(down)
        .filteredOn(f -> FrameDescriptor.type(f) == MessageType.ERROR)
        .singleElement()
        .satisfies(f -> assertThat(FrameDescriptor.requestId(f)).isEqualTo(1));
    assertThat(down).extracting(FrameDescriptor::type).doesNotContain(MessageType.RANGE_RESPONSE);
  }

  @Test
  void shouldKeepTheRangeOfAnAnsweredRequestWhenTheParentMovesLater() {
    Node root = new Node(0, 1, BEFORE);
    Node leaf = new Node(1, 1, BEFORE);
    Pipe replica = replicaAsksForGlobal(leaf);
    Uplink toRoot = orderAtTheFormerParent(root, leaf);
    for (ByteBuf frame : toRoot.pendingDown()) {
      toRoot.deliverDown(frame);
    }
    assertThat(sns(replica.takeAll(MessageType.ORDER_RESPONSE)))
        .containsExactly(Sn.of(1, 1), Sn.of(1, 2));

    Uplink toBackup = moveGlobalToNode2(leaf);
    assertThat(toBackup.up.flushed)
        .extracting(FrameDescriptor::type)
        .as("nothing is asked twice")
        .doesNotContain(MessageType.RANGE_REQUEST);
  }
}
