package io.flexlog.replica.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.AppendAckDescriptor;
import io.flexlog.core.protocol.AppendDescriptor;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.HelloDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.MetadataDescriptor;
import io.flexlog.core.protocol.OrderResponseDescriptor;
import io.flexlog.core.protocol.ReadDescriptor;
import io.flexlog.core.protocol.ReadResponseDescriptor;
import io.flexlog.core.protocol.SubscribeDescriptor;
import io.flexlog.core.protocol.SubscribeProgressDescriptor;
import io.flexlog.core.protocol.TokenSyncDescriptor;
import io.flexlog.core.protocol.TokenSyncResponseDescriptor;
import io.flexlog.core.protocol.WatermarkDescriptor;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.StorageEngines;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replica's protocol roles without sockets or event loops: a {@link VirtualRuntime} runs the
 * end of turn and the timers when the test says so, {@link RecordingConnection}s stand for clients,
 * and the sequencer and peer gateways record what they are given.
 */
class ReplicaRolesTest {
  private static final int NODE = 1;
  private static final int PEER = 2;
  private static final int SEQUENCER = 0;
  private static final int SHARD = 0;
  private static final int GLOBAL = Color.GLOBAL_ID;
  private static final long E1 = Sn.of(1, 0);
  private static final Duration READ_HOLD = Duration.ofMillis(5);

  @TempDir Path dir;
  private final VirtualRuntime runtime = new VirtualRuntime();
  private final RecordingConnection client = new RecordingConnection();
  private final List<long[]> orderRequests = new ArrayList<>();
  private final List<ByteBuf> toPeers = new ArrayList<>();
  private LogStorage storage;
  private ReplicationEngine engine;
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

  @BeforeEach
  void open() {
    storage =
        StorageEngines.open(StorageEngines.MAPPED, dir, 4 << 20, 1 << 20, DurabilityMode.PROCESS);
    Topology topology =
        new Topology(
            1,
            List.of(
                new NodeAddress(SEQUENCER, NodeAddress.Kind.SEQUENCER, "127.0.0.1", 1),
                new NodeAddress(NODE, NodeAddress.Kind.REPLICA, "127.0.0.1", 2),
                new NodeAddress(PEER, NodeAddress.Kind.REPLICA, "127.0.0.1", 3)),
            List.of(new Color(GLOBAL, Color.GLOBAL, Color.NO_PARENT, SEQUENCER)),
            List.of(new Shard(SHARD, GLOBAL, List.of(NODE, PEER))));
    SequencerGateway sequencer =
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
            topology,
            storage,
            new ReplicaLimits(1 << 20, READ_HOLD, 1000),
            sequencer,
            runtime,
            meters);
    engine.recover();
    // Connected: the sequencer welcomed this replica and its first watermark left nothing blind.
    engine.onSequencerLinkUp(SEQUENCER, 1);
    watermark(E1);
    runtime.runTasks();
  }

  @AfterEach
  void close() {
    client.releaseAll();
    toPeers.forEach(ByteBuf::release);
    storage.close();
  }

  // ------------------------------------------------------------------ driving the engine

  private static void deliver(ByteBuf frame, Consumer<ByteBuf> to) {
    try {
      to.accept(frame);
    } finally {
      frame.release();
    }
  }

  private void append(Connection c, long session, long sequence) {
    byte[] bytes = ("record " + sequence).getBytes(StandardCharsets.UTF_8);
    ByteBuf header =
        AppendDescriptor.encodeHeader(
            ByteBufAllocator.DEFAULT, sequence, session, sequence, GLOBAL, SHARD, bytes.length);
    deliver(
        Unpooled.wrappedBuffer(header, Unpooled.wrappedBuffer(bytes)), f -> engine.onAppend(c, f));
  }

  private void orderResponse(long session, long sequence, long sn) {
    ByteBuf frame =
        OrderResponseDescriptor.encodeHeader(ByteBufAllocator.DEFAULT, GLOBAL, SHARD, 1);
    OrderResponseDescriptor.writeEntry(frame, session, sequence, sn);
    deliver(frame, f -> engine.onOrderResponse(SEQUENCER, f));
  }

  private void watermark(long sn) {
    deliver(
        WatermarkDescriptor.encode(ByteBufAllocator.DEFAULT, GLOBAL, sn),
        f -> engine.onWatermark(SEQUENCER, f));
  }

  private void read(long requestId, long sn) {
    deliver(
        ReadDescriptor.encode(ByteBufAllocator.DEFAULT, requestId, GLOBAL, sn),
        f -> engine.onRead(client, f));
  }

  /** The one frame flushed to {@code c} since the last look. */
  private static ByteBuf onlyFrame(RecordingConnection c) {
    List<ByteBuf> frames = c.sent();
    assertThat(frames).hasSize(1);
    return frames.get(0);
  }

  private static long ackedSn(RecordingConnection c) {
    ByteBuf ack = onlyFrame(c);
    try {
      assertThat(FrameDescriptor.type(ack)).isEqualTo(MessageType.APPEND_ACK);
      return AppendAckDescriptor.sn(ack);
    } finally {
      ack.release();
    }
  }

  private static byte readStatus(RecordingConnection c) {
    ByteBuf response = onlyFrame(c);
    try {
      assertThat(FrameDescriptor.type(response)).isEqualTo(MessageType.READ_RESPONSE);
      return ReadResponseDescriptor.status(response);
    } finally {
      response.release();
    }
  }

  // ------------------------------------------------------------------ the append path

  @Test
  void shouldAckACommitOnlyAtTheEndOfTheTurnThatMadeItDurable() {
    append(client, 7, 1);
    runtime.runTasks();
    assertThat(orderRequests).containsExactly(new long[] {7, 1});

    orderResponse(7, 1, E1 + 1);
    assertThat(client.sent()).isEmpty();
    assertThat(client.unflushedParts()).isZero();

    runtime.runTasks();
    assertThat(ackedSn(client)).isEqualTo(E1 + 1);
    assertThat(client.flushes).isEqualTo(1);
  }

  @Test
  void shouldAnswerADuplicateAppendWithTheCommittedSnAndNoSecondEntry() {
    append(client, 7, 1);
    runtime.runTasks();
    orderResponse(7, 1, E1 + 1);
    runtime.runTasks();
    assertThat(ackedSn(client)).isEqualTo(E1 + 1);
    long used = storage.usedBytes();

    RecordingConnection retry = new RecordingConnection();
    append(retry, 7, 1);
    runtime.runTasks();

    assertThat(ackedSn(retry)).isEqualTo(E1 + 1);
    assertThat(storage.usedBytes()).isEqualTo(used);
    assertThat(orderRequests).hasSize(1);
    retry.releaseAll();
  }

  @Test
  void shouldAckAPendingTokenOnlyOnTheConnectionOfItsLatestRetry() {
    append(client, 7, 1);
    runtime.runTasks();
    RecordingConnection retry = new RecordingConnection();
    append(retry, 7, 1);
    runtime.runTasks();
    assertThat(orderRequests).hasSize(1);

    orderResponse(7, 1, E1 + 1);
    runtime.runTasks();

    assertThat(client.sent()).isEmpty();
    assertThat(ackedSn(retry)).isEqualTo(E1 + 1);
    retry.releaseAll();
  }

  @Test
  void shouldCommitAnEarlyAssignmentWhenItsRecordArrives() {
    watermark(E1);
    orderResponse(7, 1, E1 + 1);
    runtime.runTasks();
    assertThat(engine.committedThrough(SHARD, GLOBAL)).isEqualTo(E1);

    append(client, 7, 1);
    runtime.runTasks();

    assertThat(orderRequests).isEmpty();
    assertThat(ackedSn(client)).isEqualTo(E1 + 1);
    read(5, E1 + 1);
    runtime.runTasks();
    assertThat(readStatus(client)).isEqualTo(ReadResponseDescriptor.FOUND);
  }

  // ------------------------------------------------------------------ reads

  @Test
  void shouldAnswerAHeldReadWhenAWatermarkDecidesIt() {
    watermark(E1);
    runtime.runTasks();
    read(5, E1 + 3);
    runtime.runTasks();
    assertThat(client.sent()).isEmpty();
    assertThat(engine.heldReads()).isEqualTo(1);

    watermark(E1 + 5);
    runtime.runTasks();

    assertThat(readStatus(client)).isEqualTo(ReadResponseDescriptor.ABSENT);
    assertThat(engine.heldReads()).isZero();
    assertThat(runtime.pendingTimers()).isZero(); // the hold timer was cancelled
  }

  @Test
  void shouldAnswerRetryWhenTheHoldTimePassesOnTheInjectedClock() {
    watermark(E1);
    runtime.runTasks();
    read(5, E1 + 3);
    runtime.runTasks();

    runtime.advance(READ_HOLD.toNanos() - 1);
    assertThat(client.sent()).isEmpty();

    runtime.advance(1);
    assertThat(readStatus(client)).isEqualTo(ReadResponseDescriptor.RETRY);
    assertThat(engine.heldReads()).isZero();
  }

  @Test
  void shouldDropTheHeldReadsOfAClosedConnection() {
    watermark(E1);
    runtime.runTasks();
    read(5, E1 + 3);
    runtime.runTasks();

    client.close();
    engine.onConnectionClosed(client);
    runtime.advance(READ_HOLD.toNanos());

    assertThat(engine.heldReads()).isZero();
    assertThat(runtime.pendingTimers()).isZero();
    assertThat(client.sent()).isEmpty();
  }

  // ------------------------------------------------------------------ outside the turn

  @Test
  void shouldAnswerMetadataAndUnsupportedFramesAtOnceWithoutWaitingForTheTurn() {
    deliver(
        MetadataDescriptor.encodeRequest(ByteBufAllocator.DEFAULT, 3),
        f -> engine.onMetadataRequest(client, f));
    ByteBuf metadata = onlyFrame(client);
    assertThat(FrameDescriptor.type(metadata)).isEqualTo(MessageType.METADATA_RESPONSE);
    assertThat(FrameDescriptor.requestId(metadata)).isEqualTo(3);
    metadata.release();

    deliver(
        HelloDescriptor.encode(ByteBufAllocator.DEFAULT, NODE, new int[] {SHARD}),
        f -> engine.onUnsupportedFrame(client, f));
    ByteBuf error = onlyFrame(client);
    assertThat(ErrorDescriptor.code(error)).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(ErrorDescriptor.message(error)).contains("HELLO");
    error.release();
  }

  // ------------------------------------------------------------------ subscriptions

  @Test
  void shouldSendAHeartbeatOnAnIdleSubscriptionAfterAnIntervalOfVirtualTime() {
    engine.startHeartbeats();
    watermark(E1 + 2);
    runtime.runTasks();
    deliver(
        SubscribeDescriptor.encode(
            ByteBufAllocator.DEFAULT,
            9,
            GLOBAL,
            SHARD,
            0,
            1 << 20,
            SubscribeDescriptor.ACCEPT_UNSYNCED),
        f -> engine.onSubscribe(client, f));
    runtime.runTasks();
    ByteBuf opening = onlyFrame(client);
    assertThat(SubscribeProgressDescriptor.progress(opening)).isEqualTo(E1 + 2);
    opening.release();

    long interval = ReplicaLimits.DEFAULT_HEARTBEAT_INTERVAL.toNanos();
    runtime.advance(interval - 1);
    assertThat(client.sent()).isEmpty();
    runtime.advance(interval / SubscriptionService.TICKS_PER_HEARTBEAT);

    ByteBuf heartbeat = onlyFrame(client);
    assertThat(FrameDescriptor.type(heartbeat)).isEqualTo(MessageType.SUBSCRIBE_PROGRESS);
    assertThat(SubscribeProgressDescriptor.progress(heartbeat)).isEqualTo(E1 + 2);
    heartbeat.release();

    engine.stopHeartbeats();
    assertThat(runtime.pendingTimers()).isZero();
  }

  // ------------------------------------------------------------------ token sync

  @Test
  void shouldAdoptAPeersSnAfterReSendingTheTokenSyncOnTheRetryTimer() {
    engine.attachPeers(
        new PeerGateway() {
          @Override
          public void send(int nodeId, ByteBuf frame) {
            assertThat(nodeId).isEqualTo(PEER);
            toPeers.add(frame);
          }

          @Override
          public void flush() {}
        });
    append(client, 7, 1);
    runtime.runTasks();
    orderRequests.clear();

    engine.onSequencerLinkUp(SEQUENCER, 2);
    runtime.runTasks();
    assertThat(toPeers).hasSize(1);
    ByteBuf request = toPeers.get(0);
    assertThat(TokenSyncDescriptor.incarnation(request)).isEqualTo(2);
    assertThat(TokenSyncDescriptor.tokenSession(request, 0)).isEqualTo(7);

    runtime.advance(Duration.ofMillis(TokenSync.RETRY_MS).toNanos());
    assertThat(toPeers).hasSize(2);
    assertThat(FrameDescriptor.requestId(toPeers.get(1)))
        .isEqualTo(FrameDescriptor.requestId(request));

    ByteBuf response =
        TokenSyncResponseDescriptor.encodeHeader(
            ByteBufAllocator.DEFAULT, FrameDescriptor.requestId(request), SHARD, PEER, 1);
    response.writeLong(E1 + 4);
    deliver(response, engine::onTokenSyncResponse);
    runtime.runTasks();

    assertThat(ackedSn(client)).isEqualTo(E1 + 4);
    assertThat(orderRequests).isEmpty();
    runtime.advance(Duration.ofMillis(TokenSync.RETRY_MS).toNanos());
    assertThat(toPeers).hasSize(2); // the round is complete: no more retries
  }
}
