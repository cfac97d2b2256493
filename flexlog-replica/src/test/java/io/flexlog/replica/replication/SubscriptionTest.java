package io.flexlog.replica.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.AppendDescriptor;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.Frames;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.OrderResponseDescriptor;
import io.flexlog.core.protocol.ReadDescriptor;
import io.flexlog.core.protocol.ReadResponseDescriptor;
import io.flexlog.core.protocol.SubscribeCreditDescriptor;
import io.flexlog.core.protocol.SubscribeDescriptor;
import io.flexlog.core.protocol.SubscribeProgressDescriptor;
import io.flexlog.core.protocol.SubscribeRecordsDescriptor;
import io.flexlog.core.protocol.TopologyMarkDescriptor;
import io.flexlog.core.protocol.UnsubscribeDescriptor;
import io.flexlog.core.protocol.WatermarkDescriptor;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.StorageEngines;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replica's side of Subscribe, driven frame by frame on an embedded event loop: ordering,
 * credits, the live tail, resuming from an SN, refusals.
 *
 * <p>Topology: {@code global} (0) with child {@code left} (1); shard 0 is attached to global and
 * shard 1 to left, both on this node (1), so shard 1 holds records of both colors.
 */
class SubscriptionTest {
  private static final int NODE = 1;
  private static final int GLOBAL = Color.GLOBAL_ID;
  private static final int LEFT = 1;
  private static final int SHARD_G = 0;
  private static final int SHARD_L = 1;
  private static final long E1 = Sn.of(1, 0);
  private static final long LOTS = 1L << 40;

  @TempDir Path dir;
  private final EmbeddedChannel loop = new EmbeddedChannel();
  private final EmbeddedChannel producer = new EmbeddedChannel();
  private final EmbeddedChannel subscriber = new EmbeddedChannel();
  private final List<long[]> orderRequests = new ArrayList<>();
  private LogStorage storage;
  private ReplicationEngine engine;
  private long sequence;

  private static Topology topology() {
    return new Topology(
        1,
        List.of(
            new NodeAddress(0, NodeAddress.Kind.SEQUENCER, "127.0.0.1", 1),
            new NodeAddress(1, NodeAddress.Kind.REPLICA, "127.0.0.1", 2)),
        List.of(new Color(GLOBAL, Color.GLOBAL, Color.NO_PARENT, 0), new Color(LEFT, "left", 0, 0)),
        List.of(new Shard(SHARD_G, GLOBAL, List.of(1)), new Shard(SHARD_L, LEFT, List.of(1))));
  }

  @BeforeEach
  void open() {
    storage =
        StorageEngines.open(StorageEngines.MAPPED, dir, 16 << 20, 4 << 20, DurabilityMode.PROCESS);
    SequencerGateway gateway =
        new SequencerGateway() {
          @Override
          public void send(OrderRequestBatch batch, int replicaNodeId) {
            for (int i = 0; i < batch.count(); i++) {
              orderRequests.add(new long[] {batch.session(i), batch.sequence(i)});
            }
          }

          @Override
          public void flush() {}
        };
    engine =
        new ReplicationEngine(
            NODE,
            topology(),
            storage,
            new ReplicaLimits(1 << 20, Duration.ofMillis(1), 10_000),
            gateway,
            loop.eventLoop(),
            new SimpleMeterRegistry());
    engine.recover();
  }

  @AfterEach
  void close() {
    loop.finishAndReleaseAll();
    producer.finishAndReleaseAll();
    subscriber.finishAndReleaseAll();
    storage.close();
  }

  // ------------------------------------------------------------------ driving the engine

  /** Appends and commits a record at {@code sn}; the watermark is separate. */
  private void commit(int shard, int color, long sn, byte[] payload) {
    long seq = ++sequence;
    ByteBuf header =
        AppendDescriptor.encodeHeader(
            ByteBufAllocator.DEFAULT, seq, 7, seq, color, shard, payload.length);
    ByteBuf frame = Unpooled.wrappedBuffer(header, Unpooled.wrappedBuffer(payload));
    try {
      engine.onAppend(EmbeddedConnections.of(producer), frame);
    } finally {
      frame.release();
    }
    loop.runPendingTasks();
    ByteBuf response =
        OrderResponseDescriptor.encodeHeader(ByteBufAllocator.DEFAULT, color, shard, 1);
    OrderResponseDescriptor.writeEntry(response, 7, seq, sn);
    try {
      engine.onOrderResponse(0, response);
    } finally {
      response.release();
    }
    loop.runPendingTasks();
    producer.releaseOutbound();
  }

  private void commit(int shard, int color, long sn, String payload) {
    commit(shard, color, sn, payload.getBytes(StandardCharsets.UTF_8));
  }

  private void watermark(int color, long sn) {
    ByteBuf frame = WatermarkDescriptor.encode(ByteBufAllocator.DEFAULT, color, sn);
    try {
      engine.onWatermark(0, frame);
    } finally {
      frame.release();
    }
    loop.runPendingTasks();
  }

  private void subscribe(long id, int color, int shard, long fromSn, long credit, byte flags) {
    subscribe(subscriber, id, color, shard, fromSn, credit, flags);
  }

  private void subscribe(
      EmbeddedChannel channel,
      long id,
      int color,
      int shard,
      long fromSn,
      long credit,
      byte flags) {
    ByteBuf frame =
        SubscribeDescriptor.encode(
            ByteBufAllocator.DEFAULT, id, color, shard, fromSn, credit, flags);
    try {
      Frames.validate(frame);
      engine.onSubscribe(EmbeddedConnections.of(channel), frame);
    } finally {
      frame.release();
    }
    loop.runPendingTasks();
  }

  private void credit(long id, long bytes) {
    ByteBuf frame = SubscribeCreditDescriptor.encode(ByteBufAllocator.DEFAULT, id, bytes);
    try {
      engine.onSubscribeCredit(EmbeddedConnections.of(subscriber), frame);
    } finally {
      frame.release();
    }
    loop.runPendingTasks();
  }

  private void unsubscribe(long id) {
    ByteBuf frame = UnsubscribeDescriptor.encode(ByteBufAllocator.DEFAULT, id);
    try {
      engine.onUnsubscribe(EmbeddedConnections.of(subscriber), frame);
    } finally {
      frame.release();
    }
    loop.runPendingTasks();
  }

  /** Every complete frame written to {@code channel} so far, reassembled and validated. */
  private static List<Received> drain(EmbeddedChannel channel) {
    List<Received> frames = new ArrayList<>();
    for (ByteBuf frame : PeeredReplica.frames(channel)) {
      Frames.validate(frame);
      frames.add(Received.of(frame));
    }
    return frames;
  }

  private List<Received> drain() {
    return drain(subscriber);
  }

  /** One decoded frame sent to the subscriber. */
  record Received(
      byte type,
      long id,
      long progress,
      List<Long> sns,
      List<String> payloads,
      ErrorCode error,
      long version) {
    Received(
        byte type, long id, long progress, List<Long> sns, List<String> payloads, ErrorCode error) {
      this(type, id, progress, sns, payloads, error, 0);
    }

    static Received of(ByteBuf frame) {
      byte type = FrameDescriptor.type(frame);
      long id = FrameDescriptor.requestId(frame);
      return switch (type) {
        case MessageType.SUBSCRIBE_RECORDS -> {
          List<Long> sns = new ArrayList<>();
          List<String> payloads = new ArrayList<>();
          int at = SubscribeRecordsDescriptor.payloadsStart(frame);
          for (int i = 0; i < SubscribeRecordsDescriptor.count(frame); i++) {
            int length = SubscribeRecordsDescriptor.payloadLength(frame, i);
            sns.add(SubscribeRecordsDescriptor.sn(frame, i));
            payloads.add(frame.toString(at, length, StandardCharsets.ISO_8859_1));
            at += length;
          }
          yield new Received(
              type, id, SubscribeRecordsDescriptor.progress(frame), sns, payloads, null);
        }
        case MessageType.SUBSCRIBE_PROGRESS ->
            new Received(
                type, id, SubscribeProgressDescriptor.progress(frame), List.of(), List.of(), null);
        case MessageType.ERROR ->
            new Received(type, id, -1, List.of(), List.of(), ErrorDescriptor.code(frame));
        case MessageType.TOPOLOGY_MARK ->
            new Received(
                type,
                id,
                TopologyMarkDescriptor.markSn(frame),
                List.of(),
                List.of(),
                null,
                TopologyMarkDescriptor.topologyVersion(frame));
        default -> throw new AssertionError("unexpected " + MessageType.name(type));
      };
    }
  }

  private static List<Long> sns(List<Received> frames) {
    return frames.stream().flatMap(f -> f.sns().stream()).toList();
  }

  private static List<String> payloads(List<Received> frames) {
    return frames.stream().flatMap(f -> f.payloads().stream()).toList();
  }

  private static long sn(long counter) {
    return E1 + counter;
  }

  // ------------------------------------------------------------------ tests

  @Test
  void shouldStreamCommittedRecordsInSnOrderWithProgress() {
    watermark(GLOBAL, E1);
    commit(SHARD_G, GLOBAL, sn(1), "a");
    commit(SHARD_G, GLOBAL, sn(2), "b");
    commit(SHARD_G, GLOBAL, sn(3), "c");
    watermark(GLOBAL, sn(5));

    subscribe(9, GLOBAL, SHARD_G, 0, LOTS, (byte) 0);

    List<Received> frames = drain();
    assertThat(frames).hasSize(1);
    assertThat(frames.get(0).type()).isEqualTo(MessageType.SUBSCRIBE_RECORDS);
    assertThat(frames.get(0).id()).isEqualTo(9);
    assertThat(frames.get(0).sns()).containsExactly(sn(1), sn(2), sn(3));
    assertThat(frames.get(0).payloads()).containsExactly("a", "b", "c");
    assertThat(frames.get(0).progress()).isEqualTo(sn(5));
  }

  @Test
  void shouldStartAtTheFirstRecordWhoseSnIsAtLeastFromSn() {
    watermark(GLOBAL, E1);
    commit(SHARD_G, GLOBAL, sn(1), "a");
    commit(SHARD_G, GLOBAL, sn(3), "c");
    commit(SHARD_G, GLOBAL, sn(4), "d");
    watermark(GLOBAL, sn(4));

    subscribe(1, GLOBAL, SHARD_G, sn(2), LOTS, (byte) 0);

    assertThat(payloads(drain())).containsExactly("c", "d");
  }

  @Test
  void shouldSendOnlyRecordsAtOrBelowCommittedThroughThenTailLive() {
    watermark(GLOBAL, E1);
    commit(SHARD_G, GLOBAL, sn(1), "a");
    commit(SHARD_G, GLOBAL, sn(2), "b");
    watermark(GLOBAL, sn(1));

    subscribe(1, GLOBAL, SHARD_G, 0, LOTS, (byte) 0);
    List<Received> first = drain();
    assertThat(sns(first)).containsExactly(sn(1));
    assertThat(first.get(first.size() - 1).progress()).isEqualTo(sn(1));

    watermark(GLOBAL, sn(2));
    commit(SHARD_G, GLOBAL, sn(3), "c");
    List<Received> second = drain();
    assertThat(sns(second)).containsExactly(sn(2));
    assertThat(second.get(second.size() - 1).progress()).isEqualTo(sn(2));

    watermark(GLOBAL, sn(4));
    List<Received> third = drain();
    assertThat(payloads(third)).containsExactly("c");
    assertThat(third.get(third.size() - 1).progress()).isEqualTo(sn(4));
  }

  @Test
  void shouldReportProgressWithoutRecordsWhenTheWatermarkMovesPastHoles() {
    watermark(GLOBAL, E1);
    subscribe(1, GLOBAL, SHARD_G, 0, LOTS, (byte) 0);
    List<Received> opened = drain();
    assertThat(opened).hasSize(1);
    assertThat(opened.get(0).type()).isEqualTo(MessageType.SUBSCRIBE_PROGRESS);
    assertThat(opened.get(0).progress()).isEqualTo(E1);

    watermark(GLOBAL, sn(7));

    List<Received> moved = drain();
    assertThat(moved).hasSize(1);
    assertThat(moved.get(0).type()).isEqualTo(MessageType.SUBSCRIBE_PROGRESS);
    assertThat(moved.get(0).progress()).isEqualTo(sn(7));
    watermark(GLOBAL, sn(7));
    assertThat(drain()).isEmpty();
  }

  @Test
  void shouldStopAtCreditOvershootingByAtMostOneRecordAndResumeOnCredit() {
    watermark(GLOBAL, E1);
    for (int i = 1; i <= 5; i++) {
      commit(SHARD_G, GLOBAL, sn(i), "0123456789"); // cost 10 + 12 = 22 bytes each
    }
    watermark(GLOBAL, sn(5));

    subscribe(1, GLOBAL, SHARD_G, 0, 30, (byte) 0);
    List<Received> first = drain();
    assertThat(sns(first)).containsExactly(sn(1), sn(2));
    assertThat(first.get(first.size() - 1).progress()).isEqualTo(sn(2));

    credit(1, 1);
    assertThat(drain()).isEmpty(); // credit is 30 - 44 + 1 < 0

    credit(1, 20); // credit 7: one more record
    List<Received> second = drain();
    assertThat(sns(second)).containsExactly(sn(3));

    credit(1, LOTS);
    List<Received> third = drain();
    assertThat(sns(third)).containsExactly(sn(4), sn(5));
    assertThat(third.get(third.size() - 1).progress()).isEqualTo(sn(5));
  }

  @Test
  void shouldOpenWithProgressEvenWithoutCredit() {
    watermark(GLOBAL, E1);
    commit(SHARD_G, GLOBAL, sn(1), "a");
    watermark(GLOBAL, sn(1));

    subscribe(1, GLOBAL, SHARD_G, 0, 0, (byte) 0);

    List<Received> frames = drain();
    assertThat(frames).hasSize(1);
    assertThat(frames.get(0).type()).isEqualTo(MessageType.SUBSCRIBE_PROGRESS);
    assertThat(frames.get(0).progress()).isZero();
    credit(1, 100);
    assertThat(payloads(drain())).containsExactly("a");
  }

  @Test
  void shouldResumeFromAnSnWithoutRepeatingOrSkippingRecords() {
    watermark(GLOBAL, E1);
    for (int i = 1; i <= 6; i++) {
      commit(SHARD_G, GLOBAL, sn(i), "r" + i);
    }
    watermark(GLOBAL, sn(6));
    subscribe(1, GLOBAL, SHARD_G, 0, 50, (byte) 0);
    List<Received> before = drain();
    long resumeAfter = before.get(before.size() - 1).progress();
    unsubscribe(1);

    subscribe(2, GLOBAL, SHARD_G, resumeAfter + 1, LOTS, (byte) 0);

    List<Long> all = new ArrayList<>(sns(before));
    all.addAll(sns(drain()));
    assertThat(all).containsExactly(sn(1), sn(2), sn(3), sn(4), sn(5), sn(6));
  }

  @Test
  void shouldSplitALargeBacklogIntoBoundedBatches() {
    watermark(GLOBAL, E1);
    int records = SubscriptionService.MAX_BATCH_RECORDS * 2 + 10;
    for (int i = 1; i <= records; i++) {
      commit(SHARD_G, GLOBAL, sn(i), "x" + i);
    }
    watermark(GLOBAL, sn(records));

    subscribe(1, GLOBAL, SHARD_G, 0, LOTS, (byte) 0);

    List<Received> frames = drain();
    assertThat(frames).hasSize(3);
    assertThat(frames)
        .allSatisfy(
            f ->
                assertThat(f.sns())
                    .hasSizeLessThanOrEqualTo(SubscriptionService.MAX_BATCH_RECORDS));
    assertThat(sns(frames)).hasSize(records).isSorted().doesNotHaveDuplicates();
    assertThat(frames.get(2).progress()).isEqualTo(sn(records));
  }

  @Test
  void shouldSendExactBytesOfSmallCopiedAndLargeZeroCopyPayloads() {
    watermark(GLOBAL, E1);
    byte[][] payloads = {
      bytes(3, 'a'),
      bytes(RecordBatchWriter.COPY_BELOW_BYTES, 'b'),
      bytes(0, 'c'),
      bytes(5000, 'd'),
      bytes(RecordBatchWriter.COPY_BELOW_BYTES - 1, 'e'),
      bytes(70_000, 'f')
    };
    for (int i = 0; i < payloads.length; i++) {
      commit(SHARD_G, GLOBAL, sn(i + 1), payloads[i]);
    }
    watermark(GLOBAL, sn(payloads.length));

    subscribe(1, GLOBAL, SHARD_G, 0, LOTS, (byte) 0);

    List<String> received = payloads(drain());
    assertThat(received).hasSize(payloads.length);
    for (int i = 0; i < payloads.length; i++) {
      assertThat(received.get(i).getBytes(StandardCharsets.ISO_8859_1)).isEqualTo(payloads[i]);
    }
  }

  @Test
  void shouldServeAColorFromAShardAttachedToADescendantColor() {
    watermark(GLOBAL, E1);
    watermark(LEFT, E1);
    commit(SHARD_L, GLOBAL, sn(1), "global on left's shard");
    commit(SHARD_L, LEFT, sn(1), "left record");
    commit(SHARD_G, GLOBAL, sn(2), "global on global's shard");
    watermark(GLOBAL, sn(2));
    watermark(LEFT, sn(1));

    subscribe(1, GLOBAL, SHARD_L, 0, LOTS, (byte) 0);
    subscribe(2, LEFT, SHARD_L, 0, LOTS, (byte) 0);
    List<Received> frames = drain();

    assertThat(frames.stream().filter(f -> f.id() == 1).flatMap(f -> f.payloads().stream()))
        .containsExactly("global on left's shard");
    assertThat(frames.stream().filter(f -> f.id() == 2).flatMap(f -> f.payloads().stream()))
        .containsExactly("left record");
    assertThat(readStatus(GLOBAL, sn(1))).isEqualTo(ReadResponseDescriptor.FOUND);
    assertThat(readStatus(GLOBAL, sn(2))).isEqualTo(ReadResponseDescriptor.FOUND);
    assertThat(readStatus(LEFT, sn(1))).isEqualTo(ReadResponseDescriptor.FOUND);
  }

  @Test
  void shouldRefuseUnknownColorUnknownShardAndShardOutsideTheSubtree() {
    subscribe(1, 99, SHARD_G, 0, LOTS, (byte) 0);
    subscribe(2, GLOBAL, 42, 0, LOTS, (byte) 0);
    subscribe(3, LEFT, SHARD_G, 0, LOTS, (byte) 0);
    subscribe(4, GLOBAL, SHARD_G, -5, LOTS, (byte) 0);

    List<Received> frames = drain();
    assertThat(frames).extracting(Received::type).containsOnly(MessageType.ERROR);
    assertThat(frames)
        .extracting(Received::id, Received::error)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1L, ErrorCode.UNKNOWN_COLOR),
            org.assertj.core.groups.Tuple.tuple(2L, ErrorCode.UNKNOWN_SHARD),
            org.assertj.core.groups.Tuple.tuple(3L, ErrorCode.INVALID_ARGUMENT),
            org.assertj.core.groups.Tuple.tuple(4L, ErrorCode.INVALID_ARGUMENT));
  }

  @Test
  void shouldRefuseADuplicateSubscriptionIdOnOneConnection() {
    watermark(GLOBAL, E1);
    subscribe(1, GLOBAL, SHARD_G, 0, LOTS, (byte) 0);
    drain();

    subscribe(1, GLOBAL, SHARD_G, 0, LOTS, (byte) 0);

    List<Received> frames = drain();
    assertThat(frames).hasSize(1);
    assertThat(frames.get(0).error()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
  }

  @Test
  void shouldWaitAtABlindRangeUntilTheSyncPhaseClosesIt() {
    // A replica (re)connecting to a sequencer whose watermark is already past epoch 1 may have
    // missed ORDER_RESPONSEs in between: (E1, 2.0] is blind until the sync phase closes it.
    watermark(GLOBAL, Sn.of(2, 0));
    commit(SHARD_G, GLOBAL, Sn.of(2, 1), "after");
    watermark(GLOBAL, Sn.of(2, 1));

    subscribe(1, GLOBAL, SHARD_G, 0, LOTS, (byte) 0);
    subscribe(2, GLOBAL, SHARD_G, 0, LOTS, SubscribeDescriptor.ACCEPT_UNSYNCED);
    subscribe(3, GLOBAL, SHARD_G, Sn.of(2, 1), LOTS, (byte) 0);

    List<Received> frames = drain();
    assertThat(frames).noneMatch(f -> f.error() != null);
    // Subscriptions that would cross the blind range stop before it, whatever their flags.
    assertThat(frames.stream().filter(f -> f.id() != 3).flatMap(f -> f.payloads().stream()))
        .isEmpty();
    assertThat(frames.stream().filter(f -> f.id() != 3).mapToLong(Received::progress).max())
        .hasValue(E1);
    assertThat(frames.stream().filter(f -> f.id() == 3).flatMap(f -> f.payloads().stream()))
        .containsExactly("after");

    // The link is welcomed; with no other replica attached nothing can be missing: the range
    // closes.
    engine.onSequencerLinkUp(0, 2);
    loop.runPendingTasks();
    frames = drain();
    assertThat(frames.stream().filter(f -> f.id() == 1).flatMap(f -> f.payloads().stream()))
        .containsExactly("after");
    assertThat(frames.stream().filter(f -> f.id() == 2).flatMap(f -> f.payloads().stream()))
        .containsExactly("after");
  }

  @Test
  void shouldHoldAnOpenSubscriptionBeforeTheRangeItsReplicaMayHaveMissed() {
    engine.onSequencerLinkUp(0, 1);
    watermark(GLOBAL, E1);
    commit(SHARD_G, GLOBAL, sn(1), "a");
    watermark(GLOBAL, sn(1));
    subscribe(1, GLOBAL, SHARD_G, 0, LOTS, (byte) 0);
    assertThat(payloads(drain())).containsExactly("a");

    engine.onSequencerLinkLost(0);
    watermark(GLOBAL, sn(9)); // after the reconnect: SNs in (1, 9] may have been missed
    commit(SHARD_G, GLOBAL, sn(10), "b");
    watermark(GLOBAL, sn(10));

    List<Received> frames = drain();
    assertThat(frames).noneMatch(f -> f.error() != null);
    assertThat(payloads(frames)).isEmpty();
    assertThat(frames).allMatch(f -> f.progress() <= sn(1));

    engine.onSequencerLinkUp(0, 1);
    loop.runPendingTasks();
    assertThat(payloads(drain())).containsExactly("b");
  }

  @Test
  void shouldNotLetASubscriberWithoutCreditHoldUpAnother() {
    EmbeddedChannel slow = new EmbeddedChannel();
    try {
      watermark(GLOBAL, E1);
      subscribe(slow, 1, GLOBAL, SHARD_G, 0, 13, (byte) 0);
      subscribe(2, GLOBAL, SHARD_G, 0, LOTS, (byte) 0);
      for (int i = 1; i <= 50; i++) {
        commit(SHARD_G, GLOBAL, sn(i), "r" + i);
        watermark(GLOBAL, sn(i));
      }

      assertThat(sns(drain())).hasSize(50);
      assertThat(sns(drain(slow))).containsExactly(sn(1));
    } finally {
      slow.finishAndReleaseAll();
    }
  }

  @Test
  void shouldForgetSubscriptionsOfAClosedConnectionAndAfterUnsubscribe() {
    watermark(GLOBAL, E1);
    subscribe(1, GLOBAL, SHARD_G, 0, LOTS, (byte) 0);
    subscribe(2, GLOBAL, SHARD_G, 0, LOTS, (byte) 0);
    drain();
    unsubscribe(1);

    commit(SHARD_G, GLOBAL, sn(1), "a");
    watermark(GLOBAL, sn(1));
    assertThat(drain()).extracting(Received::id).containsOnly(2L);

    engine.onConnectionClosed(EmbeddedConnections.of(subscriber));
    commit(SHARD_G, GLOBAL, sn(2), "b");
    watermark(GLOBAL, sn(2));
    assertThat(drain()).isEmpty();
  }

  @Test
  void shouldServeAColorAndShardAddedByANewerTopologyAndIgnoreOlderOnes() {
    Topology current = topology();
    List<Color> colors = new ArrayList<>(current.colors());
    colors.add(new Color(2, "right", GLOBAL, 0));
    List<Shard> shards = new ArrayList<>(current.shards());
    shards.add(new Shard(2, 2, List.of(NODE)));
    Topology newer = new Topology(2, List.copyOf(current.nodes().values()), colors, shards);
    subscribe(1, 2, 2, 0, LOTS, (byte) 0);
    assertThat(drain())
        .singleElement()
        .extracting(Received::error)
        .isEqualTo(ErrorCode.UNKNOWN_COLOR);

    assertThat(engine.updateTopology(newer)).isNotEmpty();
    assertThat(engine.updateTopology(current)).isEmpty();
    watermark(2, E1);
    commit(2, 2, sn(1), "right");
    watermark(2, sn(1));
    subscribe(2, 2, 2, 0, LOTS, (byte) 0);

    assertThat(payloads(drain())).containsExactly("right");
    assertThat(engine.topology().version()).isEqualTo(2);
  }

  // ------------------------------------------------------------------ join marks

  private void mark(int color, long version, long markSn) {
    ByteBuf frame =
        TopologyMarkDescriptor.encode(ByteBufAllocator.DEFAULT, 0, color, color, version, markSn);
    try {
      Frames.validate(frame);
      engine.onTopologyMark(0, frame);
    } finally {
      frame.release();
    }
    loop.runPendingTasks();
  }

  /** Fails unless the mark is in {@code frames} before every record and progress at or above it. */
  private static void assertMarkFirst(List<Received> frames, long version, long markSn) {
    int at = -1;
    for (int i = 0; i < frames.size(); i++) {
      Received f = frames.get(i);
      if (f.type() == MessageType.TOPOLOGY_MARK && f.version() == version) {
        assertThat(f.progress()).isEqualTo(markSn);
        at = i;
        break;
      }
      assertThat(f.progress()).as("progress of frame %d before the mark", i).isLessThan(markSn);
      assertThat(f.sns()).as("records of frame %d before the mark", i).allMatch(sn -> sn < markSn);
    }
    assertThat(at).as("the mark of version %d among %s", version, frames).isNotNegative();
  }

  @Test
  void shouldDeliverAJoinMarkBeforeAnyRecordOrProgressAtOrAboveIt() {
    watermark(GLOBAL, E1);
    commit(SHARD_G, GLOBAL, sn(1), "a");
    watermark(GLOBAL, sn(1));
    subscribe(1, GLOBAL, SHARD_G, 0, LOTS, (byte) 0);
    List<Received> frames = new ArrayList<>(drain());
    commit(SHARD_G, GLOBAL, sn(2), "b");

    mark(GLOBAL, 2, sn(3));
    commit(SHARD_G, GLOBAL, sn(3), "c");
    commit(SHARD_G, GLOBAL, sn(5), "e");
    watermark(GLOBAL, sn(6));
    frames.addAll(drain());

    assertMarkFirst(frames, 2, sn(3));
    assertThat(sns(frames)).containsExactly(sn(1), sn(2), sn(3), sn(5));
    assertThat(frames.get(frames.size() - 1).progress()).isEqualTo(sn(6));
    assertThat(frames).filteredOn(f -> f.type() == MessageType.TOPOLOGY_MARK).hasSize(1);
  }

  @Test
  void shouldDeliverAMarkThatArrivesWhileTheSubscriptionIsOutOfCreditAheadOfLaterRecords() {
    watermark(GLOBAL, E1);
    subscribe(1, GLOBAL, SHARD_G, 0, 0, (byte) 0); // no credit
    assertThat(drain()).hasSize(1);
    commit(SHARD_G, GLOBAL, sn(1), "a");
    commit(SHARD_G, GLOBAL, sn(4), "d");
    mark(GLOBAL, 3, sn(2));
    watermark(GLOBAL, sn(4));
    List<Received> frames = new ArrayList<>(drain());

    credit(1, LOTS);
    frames.addAll(drain());

    assertMarkFirst(frames, 3, sn(2));
    assertThat(sns(frames)).containsExactly(sn(1), sn(4));
  }

  @Test
  void shouldGiveASubscriptionOpenedAfterAMarkThatMarkFirstAndIgnoreARepeatedOne() {
    watermark(GLOBAL, E1);
    mark(GLOBAL, 2, sn(3));
    mark(GLOBAL, 2, sn(3)); // the same mark again
    commit(SHARD_G, GLOBAL, sn(4), "d");
    watermark(GLOBAL, sn(4));

    subscribe(7, GLOBAL, SHARD_G, 0, LOTS, (byte) 0);
    List<Received> frames = drain();

    assertThat(frames.get(0).type()).isEqualTo(MessageType.TOPOLOGY_MARK);
    assertThat(frames.get(0).id()).isEqualTo(7);
    assertThat(frames.get(0).version()).isEqualTo(2);
    assertThat(frames.get(0).progress()).isEqualTo(sn(3));
    assertThat(frames).filteredOn(f -> f.type() == MessageType.TOPOLOGY_MARK).hasSize(1);
    assertThat(sns(frames)).containsExactly(sn(4));
  }

  @Test
  void shouldKeepMarksOfAColorApartFromOtherColorsAndShards() {
    watermark(GLOBAL, E1);
    watermark(LEFT, E1);
    subscribe(1, LEFT, SHARD_L, 0, LOTS, (byte) 0);
    subscribe(2, GLOBAL, SHARD_G, 0, LOTS, (byte) 0);
    drain();

    mark(LEFT, 4, sn(9));

    assertThat(drain())
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.type()).isEqualTo(MessageType.TOPOLOGY_MARK);
              assertThat(f.id()).isEqualTo(1);
            });
  }

  // ------------------------------------------------------------------ heartbeats

  /** One tick of the heartbeat timer on the frozen clock: a quarter of the default interval. */
  private void heartbeatTick() {
    loop.advanceTimeBy(
        ReplicaLimits.DEFAULT_HEARTBEAT_INTERVAL.toNanos()
            / SubscriptionService.TICKS_PER_HEARTBEAT,
        TimeUnit.NANOSECONDS);
    loop.runScheduledPendingTasks();
    loop.runPendingTasks();
  }

  @Test
  void shouldSendTheCurrentProgressAsAHeartbeatOnceASubscriptionWasIdleForAnInterval() {
    loop.freezeTime();
    engine.startHeartbeats();
    watermark(GLOBAL, E1);
    commit(SHARD_G, GLOBAL, sn(1), "a");
    watermark(GLOBAL, sn(2));
    subscribe(1, GLOBAL, SHARD_G, 0, LOTS, (byte) 0);
    assertThat(sns(drain())).containsExactly(sn(1));

    for (int round = 0; round < 3; round++) {
      for (int i = 1; i < SubscriptionService.TICKS_PER_HEARTBEAT; i++) {
        heartbeatTick();
        assertThat(drain()).as("round %d, tick %d", round, i).isEmpty();
      }
      heartbeatTick();
      List<Received> heartbeat = drain();
      assertThat(heartbeat).as("round %d", round).hasSize(1);
      assertThat(heartbeat.get(0).type()).isEqualTo(MessageType.SUBSCRIBE_PROGRESS);
      assertThat(heartbeat.get(0).id()).isEqualTo(1);
      assertThat(heartbeat.get(0).progress()).isEqualTo(sn(2));
    }
    engine.stopHeartbeats();
    for (int i = 0; i < 2 * SubscriptionService.TICKS_PER_HEARTBEAT; i++) {
      heartbeatTick();
    }
    assertThat(drain()).isEmpty();
  }

  @Test
  void shouldSendNoHeartbeatWhileRecordsFlowAndHeartbeatAgainOnceIdle() {
    loop.freezeTime();
    engine.startHeartbeats();
    watermark(GLOBAL, E1);
    subscribe(1, GLOBAL, SHARD_G, 0, LOTS, (byte) 0);
    assertThat(drain()).hasSize(1); // the opening progress

    for (int i = 1; i <= 4 * SubscriptionService.TICKS_PER_HEARTBEAT; i++) {
      commit(SHARD_G, GLOBAL, sn(i), "r" + i);
      watermark(GLOBAL, sn(i));
      heartbeatTick();
      List<Received> frames = drain();
      assertThat(frames).as("tick %d", i).hasSize(1);
      assertThat(frames.get(0).type()).isEqualTo(MessageType.SUBSCRIBE_RECORDS);
      assertThat(frames.get(0).sns()).containsExactly(sn(i));
    }
    for (int i = 0; i < SubscriptionService.TICKS_PER_HEARTBEAT; i++) {
      heartbeatTick();
    }
    List<Received> idle = drain();
    assertThat(idle).hasSize(1);
    assertThat(idle.get(0).type()).isEqualTo(MessageType.SUBSCRIBE_PROGRESS);
    assertThat(idle.get(0).progress()).isEqualTo(sn(4 * SubscriptionService.TICKS_PER_HEARTBEAT));
  }

  @Test
  void shouldRejectAHeartbeatIntervalBelowTheMinimumNamingTheKey() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new ReplicaLimits(1 << 20, Duration.ofMillis(1), 10, Duration.ofMillis(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("subscribe.heartbeat-interval");
  }

  @Test
  void shouldSendNoHeartbeatOnAClosedSubscription() {
    loop.freezeTime();
    engine.startHeartbeats();
    watermark(GLOBAL, E1);
    subscribe(1, GLOBAL, SHARD_G, 0, LOTS, (byte) 0);
    subscribe(2, GLOBAL, SHARD_G, 0, LOTS, (byte) 0);
    assertThat(drain()).hasSize(2);
    unsubscribe(1);

    for (int i = 0; i < SubscriptionService.TICKS_PER_HEARTBEAT; i++) {
      heartbeatTick();
    }

    assertThat(drain()).extracting(Received::id).containsExactly(2L);
  }

  private byte readStatus(int color, long sn) {
    EmbeddedChannel reader = new EmbeddedChannel();
    try {
      ByteBuf frame = ReadDescriptor.encode(ByteBufAllocator.DEFAULT, 5, color, sn);
      try {
        engine.onRead(EmbeddedConnections.of(reader), frame);
      } finally {
        frame.release();
      }
      loop.runPendingTasks();
      reader.flushOutbound();
      ByteBuf all = Unpooled.buffer();
      for (Object part = reader.readOutbound(); part != null; part = reader.readOutbound()) {
        all.writeBytes((ByteBuf) part);
        ((ByteBuf) part).release();
      }
      try {
        return ReadResponseDescriptor.status(all);
      } finally {
        all.release();
      }
    } finally {
      reader.finishAndReleaseAll();
    }
  }

  private static byte[] bytes(int length, char fill) {
    byte[] bytes = new byte[length];
    Arrays.fill(bytes, (byte) fill);
    return bytes;
  }
}
