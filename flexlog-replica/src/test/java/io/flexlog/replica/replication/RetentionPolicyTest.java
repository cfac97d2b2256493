package io.flexlog.replica.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Retention;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.AppendDescriptor;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.OrderResponseDescriptor;
import io.flexlog.core.protocol.ReadDescriptor;
import io.flexlog.core.protocol.ReadResponseDescriptor;
import io.flexlog.core.protocol.TrimDescriptor;
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
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RetentionPolicy} on a {@link VirtualRuntime} (docs/architecture.md#retention): time- and
 * size-based trims of the deciding replica, never beyond what it committed, sent to its peers, and
 * the check a peer makes before it takes a retention trim.
 */
class RetentionPolicyTest {
  private static final int NODE = 1;
  private static final int PEER = 2;
  private static final int SEQUENCER = 0;
  private static final int SHARD = 0;
  private static final int GLOBAL = Color.GLOBAL_ID;
  private static final long E1 = Sn.of(1, 0);
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final int PAYLOAD = 10;

  @TempDir Path dir;
  private final VirtualRuntime runtime = new VirtualRuntime();
  private final RecordingConnection client = new RecordingConnection();
  private final List<ByteBuf> toPeers = new ArrayList<>();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private LogStorage storage;
  private ReplicationEngine engine;
  private long sequence;

  private static Topology topology(long version, Retention retention, int firstReplica) {
    int second = firstReplica == NODE ? PEER : NODE;
    return new Topology(
        version,
        List.of(
            new NodeAddress(SEQUENCER, NodeAddress.Kind.SEQUENCER, "127.0.0.1", 1),
            new NodeAddress(NODE, NodeAddress.Kind.REPLICA, "127.0.0.1", 2),
            new NodeAddress(PEER, NodeAddress.Kind.REPLICA, "127.0.0.1", 3)),
        List.of(new Color(GLOBAL, Color.GLOBAL, Color.NO_PARENT, SEQUENCER, 0, retention)),
        List.of(new Shard(SHARD, GLOBAL, List.of(firstReplica, second))));
  }

  private void open(Topology topology) {
    storage =
        StorageEngines.open(StorageEngines.MAPPED, dir, 4 << 20, 1 << 20, DurabilityMode.PROCESS);
    engine =
        new ReplicationEngine(
            NODE,
            topology,
            storage,
            new ReplicaLimits(1 << 20, Duration.ofMillis(5), 1000),
            new SequencerGateway() {
              @Override
              public void send(OrderRequestBatch batch, int replicaNodeId) {}

              @Override
              public void flush() {}
            },
            runtime,
            meters);
    engine.recover();
    engine.onSequencerLinkUp(SEQUENCER, 1);
    watermark(E1);
    runtime.runTasks();
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
    engine.startHeartbeats();
  }

  @BeforeEach
  void resetSequence() {
    sequence = 0;
  }

  @AfterEach
  void close() {
    if (engine != null) {
      engine.stopHeartbeats();
    }
    client.releaseAll();
    toPeers.forEach(ByteBuf::release);
    if (storage != null) {
      storage.close();
    }
  }

  // ------------------------------------------------------------------ driving the engine

  private static void deliver(ByteBuf frame, Consumer<ByteBuf> to) {
    try {
      to.accept(frame);
    } finally {
      frame.release();
    }
  }

  /** Appends a record of {@link #PAYLOAD} bytes and commits it at {@code E1 + counter}. */
  private long appendCommitted(boolean withWatermark) {
    sequence++;
    byte[] bytes = String.format("record-%03d", sequence).getBytes(StandardCharsets.UTF_8);
    assertThat(bytes).hasSize(PAYLOAD);
    ByteBuf header =
        AppendDescriptor.encodeHeader(
            ByteBufAllocator.DEFAULT, sequence, 7, sequence, GLOBAL, SHARD, bytes.length);
    deliver(
        Unpooled.wrappedBuffer(header, Unpooled.wrappedBuffer(bytes)),
        f -> engine.onAppend(client, f));
    runtime.runTasks();
    long sn = E1 + sequence;
    ByteBuf response =
        OrderResponseDescriptor.encodeHeader(ByteBufAllocator.DEFAULT, GLOBAL, SHARD, 1);
    OrderResponseDescriptor.writeEntry(response, 7, sequence, sn);
    deliver(response, f -> engine.onOrderResponse(SEQUENCER, f));
    if (withWatermark) {
      watermark(sn);
    }
    runtime.runTasks();
    client.sent().forEach(ByteBuf::release);
    return sn;
  }

  private void watermark(long sn) {
    deliver(
        WatermarkDescriptor.encode(ByteBufAllocator.DEFAULT, GLOBAL, sn),
        f -> engine.onWatermark(SEQUENCER, f));
  }

  private byte readStatus(long sn) {
    client.sent().forEach(ByteBuf::release);
    deliver(
        ReadDescriptor.encode(ByteBufAllocator.DEFAULT, 1, GLOBAL, sn),
        f -> engine.onRead(client, f));
    runtime.runTasks();
    List<ByteBuf> frames = client.sent();
    assertThat(frames).hasSize(1);
    ByteBuf response = frames.get(0);
    try {
      assertThat(FrameDescriptor.type(response)).isEqualTo(MessageType.READ_RESPONSE);
      return ReadResponseDescriptor.status(response);
    } finally {
      response.release();
    }
  }

  private List<Long> peerTrims() {
    List<Long> sns = new ArrayList<>();
    for (ByteBuf frame : toPeers) {
      assertThat(FrameDescriptor.type(frame)).isEqualTo(MessageType.TRIM);
      assertThat(RetentionPolicy.isRetentionTrim(FrameDescriptor.requestId(frame))).isTrue();
      assertThat(TrimDescriptor.colorId(frame)).isEqualTo(GLOBAL);
      sns.add(TrimDescriptor.sn(frame));
    }
    return sns;
  }

  // ------------------------------------------------------------------ tests

  @Test
  void shouldTrimRecordsOlderThanRetentionMsHereAndOnThePeers() {
    open(topology(1, new Retention(1000, Retention.KEEP), NODE));
    long first = appendCommitted(true);
    long second = appendCommitted(true);
    runtime.advance(500 * MS);
    long third = appendCommitted(true);

    runtime.advance(600 * MS); // 1.1 s after the first two: sampled at 250 ms, not yet expired
    assertThat(storage.trimPoint(GLOBAL)).isZero();
    assertThat(toPeers).isEmpty();

    runtime.advance(300 * MS); // 1.4 s: the sample at 250 ms (through the second) is 1.15 s old
    assertThat(storage.trimPoint(GLOBAL)).isEqualTo(second);
    assertThat(peerTrims()).containsExactly(second);
    assertThat(readStatus(first)).isEqualTo(ReadResponseDescriptor.TRIMMED);
    assertThat(readStatus(second)).isEqualTo(ReadResponseDescriptor.TRIMMED);
    assertThat(readStatus(third)).isEqualTo(ReadResponseDescriptor.FOUND);

    runtime.advance(1000 * MS); // the third expires too
    assertThat(storage.trimPoint(GLOBAL)).isEqualTo(third);
    assertThat(readStatus(third)).isEqualTo(ReadResponseDescriptor.TRIMMED);
    assertThat(meters.get("flexlog.replica.retention.trims").counter().count()).isEqualTo(2);
  }

  @Test
  void shouldNeverTrimBeyondWhatThisReplicaCommitted() {
    open(topology(1, new Retention(100, Retention.KEEP), NODE));
    long committed = appendCommitted(true);
    long uncovered = appendCommitted(false); // committed, but no watermark covers it yet

    runtime.advance(5000 * MS);
    assertThat(storage.trimPoint(GLOBAL)).isEqualTo(committed);
    assertThat(readStatus(uncovered)).isEqualTo(ReadResponseDescriptor.FOUND);

    watermark(uncovered);
    runtime.advance(1000 * MS);
    assertThat(storage.trimPoint(GLOBAL)).isEqualTo(uncovered);
  }

  @Test
  void shouldKeepAtMostRetentionBytesTrimmingTheOldestRecords() {
    open(topology(1, new Retention(Retention.KEEP, 3 * PAYLOAD), NODE));
    long[] sns = new long[6];
    for (int i = 0; i < sns.length; i++) {
      sns[i] = appendCommitted(true);
      runtime.advance(RetentionPolicy.TICK_NANOS);
    }
    runtime.advance(RetentionPolicy.TICK_NANOS);

    assertThat(storage.trimPoint(GLOBAL)).isEqualTo(sns[2]);
    assertThat(readStatus(sns[2])).isEqualTo(ReadResponseDescriptor.TRIMMED);
    assertThat(readStatus(sns[3])).isEqualTo(ReadResponseDescriptor.FOUND);
    List<Long> sent = peerTrims();
    assertThat(sent.get(sent.size() - 1)).isEqualTo(sns[2]);

    // Time does not matter to a size limit: an hour later nothing more is trimmed.
    runtime.advance(TimeUnit.HOURS.toNanos(1));
    assertThat(storage.trimPoint(GLOBAL)).isEqualTo(sns[2]);
  }

  @Test
  void shouldLearnARetentionFromANewTopologyAndLeaveTheDecisionToTheFirstReplica() {
    open(topology(1, Retention.KEEP_ALL, NODE));
    long first = appendCommitted(true);
    runtime.advance(TimeUnit.MINUTES.toNanos(1));
    assertThat(storage.trimPoint(GLOBAL)).isZero();

    // Another replica decides: this one trims nothing by itself.
    engine.updateTopology(topology(2, new Retention(100, Retention.KEEP), PEER));
    runtime.advance(TimeUnit.MINUTES.toNanos(1));
    assertThat(storage.trimPoint(GLOBAL)).isZero();
    assertThat(toPeers).isEmpty();

    engine.updateTopology(topology(3, new Retention(100, Retention.KEEP), NODE));
    runtime.advance(1000 * MS);
    assertThat(storage.trimPoint(GLOBAL)).isEqualTo(first);

    // Back to keep everything: the timer stops.
    engine.updateTopology(topology(4, Retention.KEEP_ALL, NODE));
    long second = appendCommitted(true);
    runtime.advance(TimeUnit.MINUTES.toNanos(1));
    assertThat(storage.trimPoint(GLOBAL)).isEqualTo(first);
    assertThat(readStatus(second)).isEqualTo(ReadResponseDescriptor.FOUND);
  }

  @Test
  void shouldRefuseARetentionTrimFromThePeerBeyondWhatItCommittedButTakeItLater() {
    open(topology(1, Retention.KEEP_ALL, PEER));
    long first = appendCommitted(true);
    long second = appendCommitted(false);

    ByteBuf refused = retentionTrim(second);
    try {
      assertThat(FrameDescriptor.type(refused)).isEqualTo(MessageType.ERROR);
      assertThat(ErrorDescriptor.code(refused)).isEqualTo(ErrorCode.INVALID_ARGUMENT);
      assertThat(ErrorDescriptor.message(refused))
          .contains("retention trim of color id 0 at SN " + second)
          .contains("beyond what replica node 1 has committed (" + first + ")");
    } finally {
      refused.release();
    }
    assertThat(storage.trimPoint(GLOBAL)).isZero();

    watermark(second);
    runtime.runTasks(); // committedThrough moves at the end of the turn
    ByteBuf accepted = retentionTrim(second);
    try {
      assertThat(FrameDescriptor.type(accepted)).isEqualTo(MessageType.TRIM_RESPONSE);
    } finally {
      accepted.release();
    }
    assertThat(storage.trimPoint(GLOBAL)).isEqualTo(second);
  }

  private ByteBuf retentionTrim(long sn) {
    client.sent().forEach(ByteBuf::release);
    deliver(
        TrimDescriptor.encode(
            ByteBufAllocator.DEFAULT, RetentionPolicy.REQUEST_ID_BASE + 5, GLOBAL, sn),
        f -> engine.onTrim(client, f));
    runtime.runTasks();
    List<ByteBuf> frames = client.sent();
    assertThat(frames).hasSize(1);
    return frames.get(0);
  }
}
