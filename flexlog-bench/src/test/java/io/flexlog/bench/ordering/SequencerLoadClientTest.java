package io.flexlog.bench.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.HelloDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.OrderRequestDescriptor;
import io.flexlog.core.protocol.OrderResponseDescriptor;
import io.flexlog.core.protocol.WatermarkDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The client's side of the protocol, against frames written by hand. */
class SequencerLoadClientTest {
  private static final long SESSION = 0x5E55_1011L;
  private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

  /** Client 1 of shard 1, replica node 11, asking for color 4 at sequencer node 2. */
  private final SequencerTree.Attachment attachment = new SequencerTree.Attachment(1, 11, 1, 2, 4);

  private final AtomicLong clock = new AtomicLong(1_000);
  private final LoadControl control = new LoadControl(1, clock::get);
  private final List<Long> observed = new ArrayList<>();
  private final SequencerLoadClient client =
      new SequencerLoadClient(attachment, 3, SESSION, control, (c, sn) -> observed.add(sn));
  private final EmbeddedChannel channel = new EmbeddedChannel(client);

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  @Test
  void shouldSendHelloForItsShardThenOneProbeToken() {
    ByteBuf hello = channel.readOutbound();
    ByteBuf probe = channel.readOutbound();
    try {
      assertThat(FrameDescriptor.type(hello)).isEqualTo(MessageType.HELLO);
      assertThat(HelloDescriptor.replicaNodeId(hello)).isEqualTo(11);
      assertThat(HelloDescriptor.shardIds(hello)).containsExactly(1);
      assertThat(OrderRequestDescriptor.colorId(probe)).isEqualTo(4);
      assertThat(OrderRequestDescriptor.shardId(probe)).isEqualTo(1);
      assertThat(OrderRequestDescriptor.replicaNodeId(probe)).isEqualTo(11);
      assertThat(OrderRequestDescriptor.count(probe)).isEqualTo(1);
      assertThat(OrderRequestDescriptor.tokenSession(probe, 0)).isEqualTo(SESSION);
      assertThat(OrderRequestDescriptor.tokenSequence(probe, 0)).isEqualTo(1);
    } finally {
      hello.release();
      probe.release();
    }
    assertThat(client.ready()).isNotDone();
  }

  @Test
  void shouldBecomeReadyWhenTheProbeIsAnswered() {
    drainOutbound();

    channel.writeInbound(response(4, 1, new long[] {1}, new long[] {100}));

    assertThat(client.ready()).isCompleted();
    assertThat(observed).containsExactly(100L);
    assertThat(control.completed()).isEqualTo(1);
    assertThat(channel.outboundMessages()).isEmpty();
  }

  @Test
  void shouldOpenTheWindowThenReplaceWhatOneReadTurnAnswered() {
    answerProbe();
    control.beginMeasurement();
    client.start();
    channel.runPendingTasks();
    ByteBuf window = channel.readOutbound();
    assertThat(OrderRequestDescriptor.count(window)).isEqualTo(3);
    assertThat(OrderRequestDescriptor.tokenSequence(window, 0)).isEqualTo(2);
    window.release();

    clock.addAndGet(50_000);
    channel.writeInbound(
        response(4, 1, new long[] {2}, new long[] {200}),
        response(4, 1, new long[] {3}, new long[] {201}));

    ByteBuf next = channel.readOutbound();
    assertThat(OrderRequestDescriptor.count(next)).isEqualTo(2);
    assertThat(OrderRequestDescriptor.tokenSequence(next, 0)).isEqualTo(5);
    assertThat(OrderRequestDescriptor.tokenSequence(next, 1)).isEqualTo(6);
    next.release();
    assertThat(control.measured()).isEqualTo(2);
    assertThat(observed).containsExactly(100L, 200L, 201L);
  }

  @Test
  void shouldReportIdleOnceTheLastAnswerArrivesAfterTheStop() throws Exception {
    answerProbe();
    client.start();
    channel.runPendingTasks();
    drainOutbound();
    control.stopIssuing();

    channel.writeInbound(response(4, 1, new long[] {2, 3}, new long[] {105, 106}));
    assertThat(control.busyClients()).isEqualTo(1);
    channel.writeInbound(response(4, 1, new long[] {4}, new long[] {107}));

    assertThat(control.busyClients()).isZero();
    assertThat(channel.outboundMessages()).isEmpty();
    ClientStats stats = snapshot();
    assertThat(stats.answered()).isEqualTo(4);
    assertThat(stats.orderViolations()).isZero();
  }

  @Test
  void shouldCountAnSnThatDoesNotIncrease() throws Exception {
    answerProbe();
    client.start();
    channel.runPendingTasks();
    drainOutbound();

    channel.writeInbound(response(4, 1, new long[] {2, 3}, new long[] {150, 140}));

    assertThat(snapshot().orderViolations()).isEqualTo(1);
  }

  @Test
  void shouldRetryTheProbeAfterNotReady() {
    drainOutbound();

    channel.writeInbound(
        ErrorDescriptor.encode(ALLOC, 0, ErrorCode.NOT_READY, "parent link not up yet"));
    assertThat(channel.outboundMessages()).isEmpty();
    channel.advanceTimeBy(20, TimeUnit.MILLISECONDS);
    channel.runScheduledPendingTasks();

    ByteBuf retry = channel.readOutbound();
    assertThat(OrderRequestDescriptor.tokenSequence(retry, 0)).isEqualTo(2);
    retry.release();
    assertThat(control.failure()).isEmpty();
  }

  @Test
  void shouldFailTheRunOnAnyOtherError() {
    drainOutbound();

    channel.writeInbound(
        ErrorDescriptor.encode(ALLOC, 0, ErrorCode.UNKNOWN_COLOR, "color 4 is not here"));

    assertThat(control.failure())
        .contains("client 1 (shard 1) at sequencer node 2: UNKNOWN_COLOR: color 4 is not here");
    assertThat(client.ready()).isCompletedExceptionally();
    assertThat(control.busyClients()).isZero();
  }

  @Test
  void shouldFailOnAnAnswerForATokenItDidNotSend() {
    drainOutbound();

    channel.writeInbound(response(4, 1, new long[] {9}, new long[] {100}));

    assertThat(control.failure().orElseThrow()).contains("not outstanding");
  }

  @Test
  void shouldFailOnAnAnswerForAnotherColor() {
    drainOutbound();

    channel.writeInbound(response(0, 1, new long[] {1}, new long[] {100}));

    assertThat(control.failure().orElseThrow())
        .contains("ORDER_RESPONSE for color 0 shard 1, but this client asks for color 4");
  }

  @Test
  void shouldFailWhenTheWatermarkOfItsColorGoesBack() {
    drainOutbound();
    channel.writeInbound(WatermarkDescriptor.encode(ALLOC, 0, 900)); // another color: ignored
    channel.writeInbound(WatermarkDescriptor.encode(ALLOC, 4, 50));
    assertThat(control.failure()).isEmpty();

    channel.writeInbound(WatermarkDescriptor.encode(ALLOC, 4, 49));

    assertThat(control.failure().orElseThrow()).contains("watermark of color 4 went back to 49");
  }

  @Test
  void shouldFailWhenTheSequencerClosesTheConnection() {
    drainOutbound();

    channel.close();

    assertThat(control.failure().orElseThrow()).contains("closed the connection");
  }

  private ClientStats snapshot() throws Exception {
    Future<ClientStats> stats = client.snapshot();
    channel.runPendingTasks();
    return stats.get(1, TimeUnit.SECONDS);
  }

  private void answerProbe() {
    drainOutbound();
    channel.writeInbound(response(4, 1, new long[] {1}, new long[] {100}));
  }

  private void drainOutbound() {
    for (Object frame; (frame = channel.readOutbound()) != null; ) {
      ((ByteBuf) frame).release();
    }
  }

  private static ByteBuf response(int colorId, int shardId, long[] sequences, long[] sns) {
    ByteBuf frame = OrderResponseDescriptor.encodeHeader(ALLOC, colorId, shardId, sns.length);
    for (int i = 0; i < sns.length; i++) {
      OrderResponseDescriptor.writeEntry(frame, SESSION, sequences[i], sns[i]);
    }
    return frame;
  }
}
