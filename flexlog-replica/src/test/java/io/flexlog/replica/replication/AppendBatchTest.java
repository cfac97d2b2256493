package io.flexlog.replica.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.AppendBatchAckDescriptor;
import io.flexlog.core.protocol.AppendBatchDescriptor;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.OrderResponseDescriptor;
import io.flexlog.core.protocol.WatermarkDescriptor;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.StorageEngines;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * APPEND_BATCH on the replica's append path (docs/architecture.md#batched-append): one frame of
 * many records, one order request for them, one acknowledgement, and idempotence per record.
 */
class AppendBatchTest {
  private static final int NODE = 1;
  private static final int SEQUENCER = 0;
  private static final int SHARD = 0;
  private static final int GLOBAL = Color.GLOBAL_ID;
  private static final long E1 = Sn.of(1, 0);
  private static final int MAX_RECORD = 1024;
  private static final long SESSION = 7;

  @TempDir Path dir;
  private final VirtualRuntime runtime = new VirtualRuntime();
  private final RecordingConnection client = new RecordingConnection();
  private final List<long[]> orderRequests = new ArrayList<>();
  private int orderRequestFrames;
  private LogStorage storage;
  private ReplicationEngine engine;

  @BeforeEach
  void open() {
    storage =
        StorageEngines.open(StorageEngines.MAPPED, dir, 4 << 20, 1 << 20, DurabilityMode.PROCESS);
    Topology topology =
        new Topology(
            1,
            List.of(
                new NodeAddress(SEQUENCER, NodeAddress.Kind.SEQUENCER, "127.0.0.1", 1),
                new NodeAddress(NODE, NodeAddress.Kind.REPLICA, "127.0.0.1", 2)),
            List.of(new Color(GLOBAL, Color.GLOBAL, Color.NO_PARENT, SEQUENCER)),
            List.of(new Shard(SHARD, GLOBAL, List.of(NODE))));
    SequencerGateway sequencer =
        new SequencerGateway() {
          @Override
          public void send(OrderRequestBatch batch, int replicaNodeId) {
            orderRequestFrames++;
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
            new ReplicaLimits(MAX_RECORD, Duration.ofMillis(5), 1000),
            sequencer,
            runtime,
            new SimpleMeterRegistry());
    engine.recover();
    // Connected: the sequencer welcomed this replica and its first watermark left nothing blind.
    engine.onSequencerLinkUp(SEQUENCER, 1);
    ByteBuf watermark = WatermarkDescriptor.encode(ByteBufAllocator.DEFAULT, GLOBAL, Sn.of(1, 0));
    try {
      engine.onWatermark(SEQUENCER, watermark);
    } finally {
      watermark.release();
    }
    runtime.runTasks();
  }

  @AfterEach
  void close() {
    client.releaseAll();
    storage.close();
  }

  private void appendBatch(RecordingConnection c, int colorId, long requestId, int... sizes) {
    int payloadBytes = 0;
    for (int size : sizes) {
      payloadBytes += size;
    }
    ByteBuf frame =
        AppendBatchDescriptor.encodeHeader(
            ByteBufAllocator.DEFAULT,
            requestId,
            SESSION,
            colorId,
            SHARD,
            sizes.length,
            payloadBytes);
    for (int i = 0; i < sizes.length; i++) {
      AppendBatchDescriptor.writeEntry(frame, requestId + i, sizes[i]);
    }
    frame.writeZero(payloadBytes);
    try {
      engine.onAppendBatch(c, frame);
    } finally {
      frame.release();
    }
  }

  private void orderResponse(long firstSequence, long firstSn, int count) {
    ByteBuf frame =
        OrderResponseDescriptor.encodeHeader(ByteBufAllocator.DEFAULT, GLOBAL, SHARD, count);
    for (int i = 0; i < count; i++) {
      OrderResponseDescriptor.writeEntry(frame, SESSION, firstSequence + i, firstSn + i);
    }
    try {
      engine.onOrderResponse(0, frame);
    } finally {
      frame.release();
    }
  }

  /** The outcomes of the one APPEND_BATCH_ACK flushed to {@code c}: {sequence, SN, code} each. */
  private static List<long[]> onlyBatchAck(RecordingConnection c, long requestId) {
    List<ByteBuf> frames = c.sent();
    assertThat(frames).hasSize(1);
    ByteBuf ack = frames.get(0);
    try {
      assertThat(FrameDescriptor.type(ack)).isEqualTo(MessageType.APPEND_BATCH_ACK);
      assertThat(FrameDescriptor.requestId(ack)).isEqualTo(requestId);
      assertThat(AppendBatchAckDescriptor.tokenSession(ack)).isEqualTo(SESSION);
      assertThat(AppendBatchAckDescriptor.replicaNodeId(ack)).isEqualTo(NODE);
      List<long[]> outcomes = new ArrayList<>();
      for (int i = 0; i < AppendBatchAckDescriptor.count(ack); i++) {
        outcomes.add(
            new long[] {
              AppendBatchAckDescriptor.tokenSequence(ack, i),
              AppendBatchAckDescriptor.sn(ack, i),
              AppendBatchAckDescriptor.errorCode(ack, i)
            });
      }
      return outcomes;
    } finally {
      ack.release();
    }
  }

  @Test
  void shouldOrderABatchWithOneRequestAndAckItWithOneFrame() {
    appendBatch(client, GLOBAL, 10, 100, 0, 200);
    runtime.runTasks();
    assertThat(orderRequestFrames).isEqualTo(1);
    assertThat(orderRequests)
        .containsExactly(
            new long[] {SESSION, 10}, new long[] {SESSION, 11}, new long[] {SESSION, 12});

    orderResponse(10, E1 + 1, 3);
    runtime.runTasks();

    assertThat(onlyBatchAck(client, 10))
        .containsExactly(
            new long[] {10, E1 + 1, 0}, new long[] {11, E1 + 2, 0}, new long[] {12, E1 + 3, 0});
    assertThat(client.flushes).isEqualTo(1);
  }

  @Test
  void shouldNeverStoreASecondCopyOfAnyRecordWhenABatchIsRetried() {
    appendBatch(client, GLOBAL, 10, 100, 100);
    runtime.runTasks();
    orderResponse(10, E1 + 1, 2);
    runtime.runTasks();
    onlyBatchAck(client, 10);
    long used = storage.usedBytes();

    RecordingConnection retry = new RecordingConnection();
    appendBatch(retry, GLOBAL, 10, 100, 100, 100);
    runtime.runTasks();

    assertThat(onlyBatchAck(retry, 10))
        .containsExactly(new long[] {10, E1 + 1, 0}, new long[] {11, E1 + 2, 0});
    assertThat(orderRequests).hasSize(3);
    assertThat(orderRequests.get(2)).containsExactly(SESSION, 12);
    assertThat(storage.usedBytes() - used).isPositive().isLessThan(200);
    orderResponse(12, E1 + 3, 1);
    runtime.runTasks();
    assertThat(onlyBatchAck(retry, 10)).containsExactly(new long[] {12, E1 + 3, 0});
    retry.releaseAll();
  }

  @Test
  void shouldRefuseOnlyTheOversizedRecordOfABatch() {
    appendBatch(client, GLOBAL, 10, 10, MAX_RECORD + 1, 10);

    runtime.runTasks();

    assertThat(onlyBatchAck(client, 10))
        .containsExactly(new long[] {11, 0, ErrorCode.RECORD_TOO_LARGE.code()});
    assertThat(orderRequests).containsExactly(new long[] {SESSION, 10}, new long[] {SESSION, 12});
    orderResponse(10, E1 + 1, 1);
    orderResponse(12, E1 + 2, 1);
    runtime.runTasks();
    assertThat(onlyBatchAck(client, 10))
        .containsExactly(new long[] {10, E1 + 1, 0}, new long[] {12, E1 + 2, 0});
  }

  @Test
  void shouldRefuseABatchToAnUnknownColorWithOneError() {
    appendBatch(client, 99, 10, 10, 10);
    runtime.runTasks();

    List<ByteBuf> frames = client.sent();
    assertThat(frames).hasSize(1);
    ByteBuf error = frames.get(0);
    try {
      assertThat(FrameDescriptor.type(error)).isEqualTo(MessageType.ERROR);
      assertThat(FrameDescriptor.requestId(error)).isEqualTo(10);
      assertThat(ErrorDescriptor.code(error)).isEqualTo(ErrorCode.UNKNOWN_COLOR);
    } finally {
      error.release();
    }
    assertThat(orderRequests).isEmpty();
  }
}
