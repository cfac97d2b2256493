package io.flexlog.client.internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.client.LogRecord;
import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.core.error.UnknownColorException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.SubscribeCreditDescriptor;
import io.flexlog.core.protocol.SubscribeDescriptor;
import io.flexlog.core.protocol.SubscribeProgressDescriptor;
import io.flexlog.core.protocol.SubscribeRecordsDescriptor;
import io.flexlog.core.protocol.TopologyMarkDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A client subscription against an in-memory context with a fake clock: which frames it sends to
 * which replica, how it merges, grants credit, fails over and backs off.
 *
 * <p>Color {@code orders} (1) has shards 10 (replicas 1, 2, 3) and 11 (replicas 4, 5, 6).
 */
class ClientSubscriptionTest {
  private static final long WINDOW = 1000;
  private static final long OPEN_TIMEOUT_NS = 2_000_000_000L;
  private static final long HEARTBEAT_NS = 1_000_000_000L;
  private static final long LIVENESS_TIMEOUT_NS = 3 * HEARTBEAT_NS;
  private static final Color ORDERS = new Color(1, "orders", 0, 0);
  private static final Shard A = new Shard(10, 1, List.of(1, 2, 3));
  private static final Shard B = new Shard(11, 1, List.of(4, 5, 6));

  private final FakeContext ctx = new FakeContext();
  private final ArrayDeque<Runnable> loopTasks = new ArrayDeque<>();

  private static Topology clusterTopology(boolean withOrders) {
    List<NodeAddress> nodes = new ArrayList<>();
    nodes.add(new NodeAddress(0, NodeAddress.Kind.SEQUENCER, "127.0.0.1", 1));
    for (int i = 1; i <= 6; i++) {
      nodes.add(new NodeAddress(i, NodeAddress.Kind.REPLICA, "127.0.0.1", 10 + i));
    }
    List<Color> colors = new ArrayList<>(List.of(new Color(0, Color.GLOBAL, Color.NO_PARENT, 0)));
    List<Shard> shards = new ArrayList<>();
    if (withOrders) {
      colors.add(ORDERS);
      shards.add(A);
      shards.add(B);
    }
    return new Topology(withOrders ? 1 : 2, nodes, colors, shards);
  }

  /** A sent frame, decoded. */
  record Sent(int node, byte type, long id, int shard, long fromSn, long credit, byte flags) {}

  /** An in-memory client: records what is sent, routes by id, counts time by hand. */
  final class FakeContext implements SubscriptionContext {
    Topology topology = clusterTopology(true);
    long now = 1_000_000_000L;
    long nextId = 500;
    final Map<Long, ShardStream> registered = new HashMap<>();
    final List<Sent> sent = new ArrayList<>();
    final List<Runnable> pendingRefreshes = new ArrayList<>();

    @Override
    public Topology topology() {
      return topology;
    }

    @Override
    public ByteBufAllocator alloc() {
      return UnpooledByteBufAllocator.DEFAULT;
    }

    @Override
    public long newSubscriptionId() {
      return nextId++;
    }

    @Override
    public void register(long id, ShardStream stream) {
      registered.put(id, stream);
    }

    @Override
    public void unregister(long id) {
      registered.remove(id);
    }

    @Override
    public void send(int nodeId, ByteBuf frame) {
      try {
        byte type = FrameDescriptor.type(frame);
        long id = FrameDescriptor.requestId(frame);
        sent.add(
            switch (type) {
              case MessageType.SUBSCRIBE ->
                  new Sent(
                      nodeId,
                      type,
                      id,
                      SubscribeDescriptor.shardId(frame),
                      SubscribeDescriptor.fromSn(frame),
                      SubscribeDescriptor.initialCredit(frame),
                      SubscribeDescriptor.flags(frame));
              case MessageType.SUBSCRIBE_CREDIT ->
                  new Sent(
                      nodeId, type, id, -1, -1, SubscribeCreditDescriptor.credit(frame), (byte) 0);
              default -> new Sent(nodeId, type, id, -1, -1, -1, (byte) 0);
            });
      } finally {
        frame.release();
      }
    }

    @Override
    public void refreshMetadata(Runnable then) {
      pendingRefreshes.add(then);
    }

    @Override
    public long nanoTime() {
      return now;
    }

    void completeRefresh(Topology fetched) {
      topology = fetched;
      List<Runnable> callbacks = new ArrayList<>(pendingRefreshes);
      pendingRefreshes.clear();
      callbacks.forEach(Runnable::run);
    }

    List<Sent> take() {
      List<Sent> out = new ArrayList<>(sent);
      sent.clear();
      return out;
    }
  }

  private ClientSubscription subscription(long fromSn) {
    ClientSubscription subscription =
        new ClientSubscription(
            ORDERS,
            List.of(A, B),
            ctx.topology.version(),
            fromSn,
            WINDOW,
            OPEN_TIMEOUT_NS,
            LIVENESS_TIMEOUT_NS,
            0,
            ctx,
            loopTasks::add);
    subscription.start();
    return subscription;
  }

  /** The SUBSCRIBE currently open for a shard. */
  private Sent openFor(List<Sent> sent, Shard shard) {
    return sent.stream()
        .filter(s -> s.type() == MessageType.SUBSCRIBE && s.shard() == shard.id())
        .reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("no SUBSCRIBE for shard " + shard.id()));
  }

  private void records(ClientSubscription subscription, Sent open, long progress, long... sns) {
    ByteBuf frame = recordsFrame(open.id(), open.shard(), progress, sns);
    try {
      subscription.onRecords(ctx.registered.get(open.id()), frame);
    } finally {
      frame.release();
    }
  }

  private static ByteBuf recordsFrame(long id, int shard, long progress, long... sns) {
    byte[][] payloads = new byte[sns.length][];
    int bytes = 0;
    for (int i = 0; i < sns.length; i++) {
      payloads[i] = ("sn" + sns[i]).getBytes(StandardCharsets.US_ASCII);
      bytes += payloads[i].length;
    }
    ByteBuf frame =
        SubscribeRecordsDescriptor.encodeHeader(
            UnpooledByteBufAllocator.DEFAULT, id, 1, shard, progress, sns.length, bytes, bytes);
    for (int i = 0; i < sns.length; i++) {
      SubscribeRecordsDescriptor.writeEntry(frame, sns[i], payloads[i].length);
    }
    for (byte[] payload : payloads) {
      frame.writeBytes(payload);
    }
    return frame;
  }

  private void progress(ClientSubscription subscription, Sent open, long progress) {
    ByteBuf frame =
        SubscribeProgressDescriptor.encode(
            UnpooledByteBufAllocator.DEFAULT, open.id(), 1, open.shard(), progress);
    try {
      subscription.onProgress(ctx.registered.get(open.id()), frame);
    } finally {
      frame.release();
    }
  }

  private void mark(ClientSubscription subscription, Sent open, long version, long markSn) {
    ByteBuf frame =
        TopologyMarkDescriptor.encode(
            UnpooledByteBufAllocator.DEFAULT, open.id(), 1, open.shard(), version, markSn);
    try {
      subscription.onMark(ctx.registered.get(open.id()), frame);
    } finally {
      frame.release();
    }
  }

  /** Shard 12 of color 'orders-eu' (3, a child of orders), added by topology version 2. */
  private static final Shard C = new Shard(12, 3, List.of(2, 5));

  private static Topology grownTopology() {
    Topology v1 = clusterTopology(true);
    List<Color> colors = new ArrayList<>(v1.colors());
    colors.add(new Color(3, "orders-eu", ORDERS.id(), 0));
    List<Shard> shards = new ArrayList<>(v1.shards());
    shards.add(C);
    return new Topology(2, List.copyOf(v1.nodes().values()), colors, shards);
  }

  private void error(ClientSubscription subscription, Sent open, ErrorCode code) {
    subscription.onError(ctx.registered.get(open.id()), code, "test says " + code);
  }

  private static List<Long> pollAll(ClientSubscription subscription) {
    List<Long> sns = new ArrayList<>();
    for (LogRecord r = subscription.poll(Duration.ZERO);
        r != null;
        r = subscription.poll(Duration.ZERO)) {
      sns.add(r.sn());
    }
    return sns;
  }

  private void runLoopTasks() {
    while (!loopTasks.isEmpty()) {
      loopTasks.poll().run();
    }
  }

  // ------------------------------------------------------------------ tests

  @Test
  void shouldOpenOneStreamPerShardWithTheWholeWindowAsCredit() {
    subscription(42);

    List<Sent> sent = ctx.take();

    assertThat(sent).hasSize(2);
    assertThat(sent).extracting(Sent::shard).containsExactly(10, 11);
    assertThat(sent).extracting(Sent::fromSn).containsOnly(42L);
    assertThat(sent).extracting(Sent::credit).containsOnly(WINDOW);
    // The subscriber's own start: a replica must refuse it if it is trimmed.
    assertThat(sent).extracting(Sent::flags).containsOnly(SubscribeDescriptor.REFUSE_TRIMMED);
    assertThat(ctx.registered).hasSize(2);
  }

  @Test
  void shouldLetAResumedStreamStartAfterTheTrimPointInsteadOfRefusing() {
    subscription(42);
    Sent first = openFor(ctx.take(), A);
    ClientSubscription subscription = ctx.registered.get(first.id()).owner;

    error(
        subscription, first, ErrorCode.NOT_READY); // no progress yet: still the subscriber's start
    Sent retried = openFor(ctx.take(), A);
    assertThat(retried.fromSn()).isEqualTo(42);
    assertThat(retried.flags()).isEqualTo(SubscribeDescriptor.REFUSE_TRIMMED);

    progress(subscription, retried, 50);
    subscription.onConnectionLost(retried.node());
    Sent resumed = openFor(ctx.take(), A);
    assertThat(resumed.fromSn()).isEqualTo(51);
    assertThat(resumed.flags()).isZero();
  }

  @Test
  void shouldDeliverInSnOrderOnlyPastEveryShardsProgress() {
    ClientSubscription subscription = subscription(0);
    List<Sent> sent = ctx.take();
    Sent a = openFor(sent, A);
    Sent b = openFor(sent, B);

    records(subscription, a, 10, 2, 5, 9);
    assertThat(pollAll(subscription)).isEmpty();

    records(subscription, b, 6, 3, 6);
    assertThat(pollAll(subscription)).containsExactly(2L, 3L, 5L, 6L);

    progress(subscription, b, 20);
    assertThat(pollAll(subscription)).containsExactly(9L);
    assertThat(subscription.lastSn()).isEqualTo(9);
  }

  @Test
  void shouldGrantCreditAsTheApplicationConsumes() {
    ClientSubscription subscription = subscription(0);
    List<Sent> sent = ctx.take();
    Sent a = openFor(sent, A);
    Sent b = openFor(sent, B);
    long[] sns = new long[40];
    for (int i = 0; i < sns.length; i++) {
      sns[i] = i + 1; // each costs "snNN".length + 12 = about 16 bytes
    }
    records(subscription, a, 40, sns);
    progress(subscription, b, 40);
    assertThat(ctx.take()).isEmpty(); // nothing consumed yet

    List<Long> got = pollAll(subscription);
    assertThat(got).hasSize(40);
    runLoopTasks();

    List<Sent> credits = ctx.take();
    assertThat(credits)
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.type()).isEqualTo(MessageType.SUBSCRIBE_CREDIT);
              assertThat(c.node()).isEqualTo(a.node());
              assertThat(c.id()).isEqualTo(a.id());
              assertThat(c.credit()).isGreaterThanOrEqualTo(WINDOW / 2);
            });
  }

  @Test
  void shouldResumeOnTheNextReplicaFromWhereTheShardStoppedAfterAConnectionLoss() {
    ClientSubscription subscription = subscription(0);
    List<Sent> sent = ctx.take();
    Sent a = openFor(sent, A);
    Sent b = openFor(sent, B);
    records(subscription, a, 8, 3, 7);
    progress(subscription, b, 5);
    assertThat(pollAll(subscription)).containsExactly(3L);

    subscription.onConnectionLost(a.node());

    Sent reopened = openFor(ctx.take(), A);
    assertThat(reopened.node()).isNotEqualTo(a.node()).isIn(A.replicaNodeIds());
    assertThat(reopened.fromSn()).isEqualTo(9);
    // SN 7 is held for the merge: its bytes stay out of the new replica's credit.
    assertThat(reopened.credit()).isEqualTo(WINDOW - ("sn7".length() + 12));
    assertThat(ctx.registered).doesNotContainKey(a.id()).containsKey(reopened.id());

    records(subscription, reopened, 12, 11);
    progress(subscription, b, 12);
    assertThat(pollAll(subscription)).containsExactly(7L, 11L);
  }

  @Test
  void shouldMoveToTheNextReplicaWhenOneIsNotReady() {
    subscription(0);
    Sent first = openFor(ctx.take(), A);
    ClientSubscription subscription = ctx.registered.get(first.id()).owner;

    error(subscription, first, ErrorCode.NOT_READY);
    Sent second = openFor(ctx.take(), A);
    error(subscription, second, ErrorCode.NOT_READY);
    Sent third = openFor(ctx.take(), A);
    assertThat(List.of(first.node(), second.node(), third.node()))
        .containsExactlyInAnyOrderElementsOf(A.replicaNodeIds());
    // Never asks a replica to serve what it may have missed: replicas wait for their sync phase.
    assertThat(List.of(first.flags(), second.flags(), third.flags())).containsOnly((byte) 0);
  }

  @Test
  void shouldBackOffWithGrowingDelaysOnceEveryReplicaFailed() {
    subscription(0);
    Sent open = openFor(ctx.take(), A);
    ClientSubscription subscription = ctx.registered.get(open.id()).owner;
    for (int i = 0; i < 3; i++) {
      subscription.onConnectionLost(open.node());
      open = openFor(ctx.take(), A);
    }
    subscription.onConnectionLost(open.node()); // the 4th failure in a row
    assertThat(ctx.take()).isEmpty();

    ctx.now += ShardStream.MIN_BACKOFF_NS - 1;
    subscription.onTick(ctx.now);
    assertThat(ctx.take()).isEmpty();
    ctx.now += 1;
    subscription.onTick(ctx.now);
    open = openFor(ctx.take(), A);

    subscription.onConnectionLost(open.node()); // 5th: twice the delay
    ctx.now += ShardStream.MIN_BACKOFF_NS;
    subscription.onTick(ctx.now);
    assertThat(ctx.take()).isEmpty();
    ctx.now += ShardStream.MIN_BACKOFF_NS;
    subscription.onTick(ctx.now);
    assertThat(openFor(ctx.take(), A).node()).isIn(A.replicaNodeIds());
  }

  @Test
  void shouldDoubleTheBackoffFrom50MsUpTo2Seconds() {
    long[] expectedMs = {50, 100, 200, 400, 800, 1600, 2000, 2000};
    for (int attempt = 0; attempt < expectedMs.length; attempt++) {
      assertThat(ShardStream.backoffNs(attempt)).isEqualTo(expectedMs[attempt] * 1_000_000L);
    }
    assertThat(ShardStream.backoffNs(10)).isEqualTo(ShardStream.MAX_BACKOFF_NS);
    assertThat(ShardStream.backoffNs(1000)).isEqualTo(ShardStream.MAX_BACKOFF_NS);
  }

  @Test
  void shouldMoveOnWhenAReplicaNeverAnswersAndTellItToStop() {
    ClientSubscription subscription = subscription(0);
    Sent a = openFor(ctx.take(), A);

    ctx.now += OPEN_TIMEOUT_NS + 1;
    subscription.onTick(ctx.now);

    List<Sent> sent = ctx.take();
    assertThat(sent)
        .filteredOn(s -> s.type() == MessageType.UNSUBSCRIBE)
        .extracting(Sent::id, Sent::node)
        .contains(org.assertj.core.groups.Tuple.tuple(a.id(), a.node()));
    assertThat(openFor(sent, A).node()).isNotEqualTo(a.node());
  }

  @Test
  void shouldKeepAnIdleStreamWhoseReplicaSendsHeartbeats() {
    ClientSubscription subscription = subscription(0);
    List<Sent> sent = ctx.take();
    Sent a = openFor(sent, A);
    Sent b = openFor(sent, B);
    progress(subscription, a, 5);
    progress(subscription, b, 5);

    for (int i = 0; i < 10; i++) {
      ctx.now += HEARTBEAT_NS;
      progress(subscription, a, 5); // heartbeats repeat the progress
      progress(subscription, b, 5);
      subscription.onTick(ctx.now);
    }

    assertThat(ctx.take()).isEmpty();
    assertThat(subscription.silentStreams()).isZero();
  }

  @Test
  void shouldCountTheProgressFramesHeardPerShardAcrossReplicas() throws Exception {
    ClientSubscription subscription = subscription(0);
    List<Sent> sent = ctx.take();
    Sent a = openFor(sent, A);
    Sent b = openFor(sent, B);
    records(subscription, a, 8, 3, 7); // records carry a progress too, but are not counted
    progress(subscription, b, 5);
    progress(subscription, b, 5);

    CompletableFuture<long[]> heard = subscription.progressFramesHeard();
    assertThat(heard).as("read on the loop").isNotDone();
    runLoopTasks();
    assertThat(heard.get()).containsExactly(0, 2);

    error(subscription, a, ErrorCode.INTERNAL); // shard A moves to another replica
    Sent reopened = openFor(ctx.take(), A);
    progress(subscription, reopened, 8);
    CompletableFuture<long[]> later = subscription.progressFramesHeard();
    runLoopTasks();
    assertThat(later.get()).containsExactly(1, 2);
  }

  @Test
  void shouldResumeASilentStreamAtTheNextReplicaWithoutLossOrRepeats() {
    ClientSubscription subscription = subscription(0);
    List<Sent> sent = ctx.take();
    Sent a = openFor(sent, A);
    Sent b = openFor(sent, B);
    records(subscription, a, 8, 3, 7);
    progress(subscription, b, 5);
    assertThat(pollAll(subscription)).containsExactly(3L);

    // Shard B's replica keeps heartbeating; shard A's replica falls silent (half-open link).
    for (int i = 0; i < 3; i++) {
      ctx.now += HEARTBEAT_NS;
      progress(subscription, b, 5);
      subscription.onTick(ctx.now);
    }
    assertThat(ctx.take()).isEmpty(); // exactly the timeout: not yet

    ctx.now += 1;
    progress(subscription, b, 5);
    subscription.onTick(ctx.now);

    List<Sent> moved = ctx.take();
    assertThat(moved)
        .filteredOn(s -> s.type() == MessageType.UNSUBSCRIBE)
        .extracting(Sent::id, Sent::node)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(a.id(), a.node()));
    Sent reopened = openFor(moved, A);
    assertThat(reopened.node()).isNotEqualTo(a.node()).isIn(A.replicaNodeIds());
    assertThat(reopened.fromSn()).isEqualTo(9);
    assertThat(moved).extracting(Sent::shard).doesNotContain(B.id());
    assertThat(subscription.silentStreams()).isEqualTo(1);

    // The old replica wakes up late: its frames are no longer routed to the subscription.
    assertThat(ctx.registered).doesNotContainKey(a.id());
    records(subscription, reopened, 12, 11);
    progress(subscription, b, 12);
    assertThat(pollAll(subscription)).containsExactly(7L, 11L);
  }

  @Test
  void shouldReleaseNothingAtOrAboveAJoinMarkBeforeTheNewShardsStreamJoined() {
    ClientSubscription subscription = subscription(0);
    List<Sent> sent = ctx.take();
    Sent a = openFor(sent, A);
    Sent b = openFor(sent, B);
    records(subscription, a, 3, 2);
    mark(subscription, b, 2, 4);
    records(subscription, b, 10, 6);
    mark(subscription, a, 2, 4);
    records(subscription, a, 10, 5);

    assertThat(pollAll(subscription)).containsExactly(2L);
    assertThat(ctx.pendingRefreshes).hasSize(1); // one refresh for both marks
    assertThat(ctx.take()).noneMatch(s -> s.type() == MessageType.SUBSCRIBE);

    ctx.completeRefresh(grownTopology());

    Sent c = openFor(ctx.take(), C);
    assertThat(c.fromSn()).isEqualTo(4);
    assertThat(c.node()).isIn(C.replicaNodeIds());
    assertThat(subscription.topologyVersion()).isEqualTo(2);
    assertThat(subscription.streamCount()).isEqualTo(3);
    assertThat(pollAll(subscription)).as("the new stream has not reported yet").isEmpty();

    records(subscription, c, 10, 4, 7);
    assertThat(pollAll(subscription)).containsExactly(4L, 5L, 6L, 7L);
    progress(subscription, a, 20);
    progress(subscription, b, 20);
    records(subscription, c, 20, 15);
    assertThat(pollAll(subscription)).containsExactly(15L);
  }

  @Test
  void shouldKeepHoldingUntilTheFetchedTopologyReachesTheMarksVersion() {
    ClientSubscription subscription = subscription(0);
    List<Sent> sent = ctx.take();
    Sent a = openFor(sent, A);
    Sent b = openFor(sent, B);
    mark(subscription, a, 2, 4);
    mark(subscription, b, 2, 4);
    records(subscription, a, 10, 3, 5);
    progress(subscription, b, 10);
    assertThat(pollAll(subscription)).containsExactly(3L);

    ctx.completeRefresh(clusterTopology(true)); // the metadata service is still at version 1
    assertThat(ctx.take()).isEmpty();
    subscription.onTick(ctx.now + ClientSubscription.MARK_RETRY_NS - 1);
    assertThat(ctx.pendingRefreshes).isEmpty();
    ctx.now += ClientSubscription.MARK_RETRY_NS;
    subscription.onTick(ctx.now);
    assertThat(ctx.pendingRefreshes).hasSize(1);
    assertThat(pollAll(subscription)).isEmpty();

    ctx.completeRefresh(grownTopology());
    Sent c = openFor(ctx.take(), C);
    assertThat(c.fromSn()).isEqualTo(4);
    progress(subscription, c, 10);
    assertThat(pollAll(subscription)).containsExactly(5L);
  }

  @Test
  void shouldIgnoreAMarkItsTopologyAlreadyCovers() {
    ctx.topology = grownTopology();
    ClientSubscription subscription =
        new ClientSubscription(
            ORDERS,
            List.of(A, B, C),
            2,
            0,
            WINDOW,
            OPEN_TIMEOUT_NS,
            LIVENESS_TIMEOUT_NS,
            0,
            ctx,
            loopTasks::add);
    subscription.start();
    List<Sent> sent = ctx.take();
    Sent a = openFor(sent, A);
    Sent b = openFor(sent, B);
    Sent c = openFor(sent, C);

    mark(subscription, a, 2, 4);
    records(subscription, a, 10, 5);
    progress(subscription, b, 10);
    progress(subscription, c, 10);

    assertThat(ctx.pendingRefreshes).isEmpty();
    assertThat(pollAll(subscription)).containsExactly(5L);
  }

  @Test
  void shouldResumeAfterTheLastReleasedSnElsewhereWhenAStreamSendsRecordsOutOfOrder() {
    ClientSubscription subscription = subscription(0);
    List<Sent> sent = ctx.take();
    Sent a = openFor(sent, A);
    Sent b = openFor(sent, B);
    records(subscription, a, 5, 5);

    // SN 4 at or below the progress it reported: that replica skipped it. Nothing was released
    // yet (shard B has not moved), so shard A resumes from the start elsewhere, and SN 5 is dropped
    // instead of being delivered before 4.
    records(subscription, a, 9, 4);

    Sent reopened = openFor(ctx.take(), A);
    assertThat(reopened.node()).isNotEqualTo(a.node());
    assertThat(reopened.fromSn()).isEqualTo(1);
    records(subscription, reopened, 9, 4, 5);
    progress(subscription, b, 9);
    assertThat(pollAll(subscription)).containsExactly(4L, 5L);
  }

  @Test
  void shouldFailWithUnknownColorWhenTheRefreshedTopologyLacksTheColor() {
    ClientSubscription subscription = subscription(0);
    Sent a = openFor(ctx.take(), A);
    error(subscription, a, ErrorCode.UNKNOWN_COLOR);
    assertThat(ctx.pendingRefreshes).hasSize(1);

    ctx.completeRefresh(clusterTopology(false));

    assertThatThrownBy(() -> subscription.poll(Duration.ZERO))
        .isInstanceOf(UnknownColorException.class)
        .hasMessageContaining("orders");
    assertThat(ctx.registered).isEmpty();
    assertThat(ctx.take()).filteredOn(s -> s.type() == MessageType.SUBSCRIBE).isEmpty();
  }

  @Test
  void shouldRetryAfterRefreshWhenOnlyTheReplicaIsBehindTheTopology() {
    ClientSubscription subscription = subscription(0);
    Sent a = openFor(ctx.take(), A);
    error(subscription, a, ErrorCode.UNKNOWN_SHARD);
    assertThat(ctx.take()).isEmpty();

    ctx.completeRefresh(clusterTopology(true));

    Sent retried = openFor(ctx.take(), A);
    assertThat(retried.fromSn()).isEqualTo(a.fromSn());
  }

  @Test
  void shouldEndWithTheTypedErrorOfAnInvalidRequest() {
    ClientSubscription subscription = subscription(0);
    Sent a = openFor(ctx.take(), A);

    error(subscription, a, ErrorCode.INVALID_ARGUMENT);

    assertThatThrownBy(() -> subscription.poll(Duration.ZERO))
        .isInstanceOf(InvalidArgumentException.class);
  }

  @Test
  void shouldUnsubscribeEveryStreamOnClose() {
    ClientSubscription subscription = subscription(0);
    List<Sent> opened = ctx.take();

    subscription.close();
    runLoopTasks();

    assertThat(ctx.take())
        .extracting(Sent::type, Sent::id)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(MessageType.UNSUBSCRIBE, opened.get(0).id()),
            org.assertj.core.groups.Tuple.tuple(MessageType.UNSUBSCRIBE, opened.get(1).id()));
    assertThat(ctx.registered).isEmpty();
    assertThat(subscription.isClosed()).isTrue();
    assertThat(subscription.iterator().hasNext()).isFalse();
    assertThatThrownBy(() -> subscription.poll(Duration.ZERO))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void shouldHandRecordsToABlockedReaderAndWakeItOnClose() throws Exception {
    ClientSubscription subscription = subscription(0);
    List<Sent> sent = ctx.take();
    List<Long> seen = new ArrayList<>();
    Thread reader =
        new Thread(
            () -> {
              for (LogRecord record : subscription) {
                synchronized (seen) {
                  seen.add(record.sn());
                }
              }
            });
    reader.start();
    records(subscription, openFor(sent, A), 4, 4);
    progress(subscription, openFor(sent, B), 4);
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (System.nanoTime() < deadline) {
      synchronized (seen) {
        if (!seen.isEmpty()) {
          break;
        }
      }
      Thread.sleep(1);
    }
    subscription.close();
    reader.join(5000);

    assertThat(reader.isAlive()).isFalse();
    assertThat(seen).containsExactly(4L);
  }
}
