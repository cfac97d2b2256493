package io.flexlog.client.internals;

import static io.flexlog.client.internals.ClientHarness.ALLOC;
import static io.flexlog.client.internals.ClientHarness.DELIVERY_TIMEOUT_NS;
import static io.flexlog.client.internals.ClientHarness.EVENTS;
import static io.flexlog.client.internals.ClientHarness.EVENTS_A;
import static io.flexlog.client.internals.ClientHarness.REQUEST_TIMEOUT_NS;
import static io.flexlog.client.internals.ClientHarness.SESSION;
import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.internals.RecordingOutbound.Sent;
import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.FlexLogTimeoutException;
import io.flexlog.core.error.StorageFullException;
import io.flexlog.core.protocol.AppendBatchAckDescriptor;
import io.flexlog.core.protocol.AppendBatchDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The batched-append role without sockets: one APPEND_BATCH per replica, per-record completion,
 * re-sends of only the unacknowledged records, and per-record failures. Color {@code events} has
 * one shard, 20, on replicas 1 and 2.
 */
class BatchAppendsTest {
  private final ClientHarness client = new ClientHarness();
  private final Map<Integer, Long> appended = new TreeMap<>();
  private final Map<Integer, FlexLogException> failed = new TreeMap<>();
  private final BatchListener listener =
      new BatchListener() {
        @Override
        public void onAppended(int index, long sn) {
          assertThat(appended.put(index, sn)).isNull();
        }

        @Override
        public void onFailed(int index, FlexLogException error) {
          assertThat(failed.put(index, error)).isNull();
        }

        @Override
        public void onResent(int records) {
          resent.add(records);
        }
      };
  private final List<Integer> resent = new ArrayList<>();

  @AfterEach
  void release() {
    client.close();
  }

  private List<Sent> appendThree() {
    ByteBuf[] payloads = new ByteBuf[3];
    for (int i = 0; i < 3; i++) {
      payloads[i] = Unpooled.wrappedBuffer(new byte[] {(byte) i, 1, 2});
    }
    client.batches.append(EVENTS.name(), EVENTS.id(), EVENTS_A.id(), payloads, listener);
    client.runLoop();
    return client.outbound.take(MessageType.APPEND_BATCH);
  }

  private static List<Long> sequences(Sent batch) {
    List<Long> sequences = new ArrayList<>();
    for (int i = 0; i < AppendBatchDescriptor.count(batch.frame()); i++) {
      sequences.add(AppendBatchDescriptor.tokenSequence(batch.frame(), i));
    }
    return sequences;
  }

  /** Replica {@code replica} commits records {@code indexes} of the batch at SN 100 + index. */
  private void ack(Sent batch, int replica, int... indexes) {
    ByteBuf frame =
        AppendBatchAckDescriptor.encodeHeader(
            ALLOC, batch.requestId(), SESSION, EVENTS.id(), replica, indexes.length);
    for (int i : indexes) {
      AppendBatchAckDescriptor.writeCommitted(frame, batch.requestId() + i, 100 + i);
    }
    client.deliver(frame);
  }

  @Test
  void shouldSendOneFramePerReplicaAndCompleteARecordWhenEveryReplicaAckedIt() {
    List<Sent> sent = appendThree();

    assertThat(sent).extracting(Sent::node).containsExactly(1, 2);
    long first = sent.get(0).requestId();
    assertThat(sequences(sent.get(0))).containsExactly(first, first + 1, first + 2);
    assertThat(AppendBatchDescriptor.tokenSession(sent.get(0).frame())).isEqualTo(SESSION);
    ack(sent.get(0), 1, 0, 1, 2);
    assertThat(appended).isEmpty();

    ack(sent.get(1), 2, 0, 1, 2);

    assertThat(appended)
        .containsExactly(Map.entry(0, 100L), Map.entry(1, 101L), Map.entry(2, 102L));
    assertThat(client.batches.inFlight()).isZero();
  }

  @Test
  void shouldResendToAReplicaOnlyTheRecordsItHasNotAcknowledged() {
    List<Sent> sent = appendThree();
    long first = sent.get(0).requestId();
    ack(sent.get(0), 1, 0, 1, 2);
    ack(sent.get(1), 2, 0);

    client.advance(REQUEST_TIMEOUT_NS + 1);

    List<Sent> resent = client.outbound.take(MessageType.APPEND_BATCH);
    assertThat(resent).extracting(Sent::node).containsExactly(2);
    assertThat(resent.get(0).requestId()).isEqualTo(first);
    assertThat(sequences(resent.get(0))).containsExactly(first + 1, first + 2);
    assertThat(appended).containsOnlyKeys(0);
    assertThat(this.resent).as("records told resent").containsExactly(2);
  }

  @Test
  void shouldFailOnlyTheRefusedRecordWithTheTypedErrorOfItsCode() {
    List<Sent> sent = appendThree();
    long first = sent.get(0).requestId();
    ByteBuf refusal =
        AppendBatchAckDescriptor.encodeHeader(ALLOC, first, SESSION, EVENTS.id(), 1, 1);
    AppendBatchAckDescriptor.writeRefused(refusal, first + 1, ErrorCode.STORAGE_FULL.code());
    client.deliver(refusal);
    ack(sent.get(0), 1, 0, 2);
    ack(sent.get(1), 2, 0, 1, 2);

    assertThat(failed).containsOnlyKeys(1);
    assertThat(failed.get(1))
        .isInstanceOf(StorageFullException.class)
        .hasMessageContaining("replica 1 refused record 1 of a batch of 3");
    assertThat(appended).containsOnlyKeys(0, 2);
  }

  /** Three records of 3 bytes in one buffer, as the producer hands them over. */
  private ByteBuf appendThreeInOneBuffer() {
    ByteBuf whole = Unpooled.directBuffer(9);
    ByteBuf[] payloads = new ByteBuf[3];
    for (int i = 0; i < 3; i++) {
      whole.writeBytes(new byte[] {(byte) i, 1, 2});
      payloads[i] = whole.retainedSlice(3 * i, 3);
    }
    client.batches.append(EVENTS.name(), EVENTS.id(), EVENTS_A.id(), payloads, whole, listener);
    client.runLoop();
    return whole;
  }

  private static byte[] payloadBytes(Sent batch) {
    ByteBuf frame = batch.frame();
    int start = frame.readerIndex() + AppendBatchDescriptor.payloadsStart(frame);
    byte[] bytes = new byte[frame.writerIndex() - start];
    frame.getBytes(start, bytes);
    return bytes;
  }

  @Test
  void shouldSendTheBatchsOneBufferAsItIsAndOnlyTheMissingRecordsOnAResend() {
    ByteBuf whole = appendThreeInOneBuffer();
    List<Sent> sent = client.outbound.take(MessageType.APPEND_BATCH);
    long first = sent.get(0).requestId();
    assertThat(sequences(sent.get(0))).containsExactly(first, first + 1, first + 2);
    assertThat(payloadBytes(sent.get(0))).containsExactly(0, 1, 2, 1, 1, 2, 2, 1, 2);
    assertThat(((CompositeByteBuf) sent.get(0).frame()).numComponents())
        .as("the header and the batch's buffer")
        .isEqualTo(2);
    ack(sent.get(0), 1, 0, 1, 2);
    ack(sent.get(1), 2, 1);

    client.advance(REQUEST_TIMEOUT_NS + 1);

    List<Sent> resent = client.outbound.take(MessageType.APPEND_BATCH);
    assertThat(sequences(resent.get(0))).containsExactly(first, first + 2);
    assertThat(payloadBytes(resent.get(0))).containsExactly(0, 1, 2, 2, 1, 2);
    assertThat(whole.refCnt()).as("held by the batch and by the frames").isPositive();

    ack(resent.get(0), 2, 0, 2);
    client.outbound.releaseAll();

    assertThat(appended).containsOnlyKeys(0, 1, 2);
    assertThat(whole.refCnt()).as("released with the last record and the last frame").isZero();
  }

  @Test
  void shouldReleaseTheBatchsBufferWhenItsRecordsFail() {
    ByteBuf whole = appendThreeInOneBuffer();
    client.outbound.take(MessageType.APPEND_BATCH);

    client.advance(DELIVERY_TIMEOUT_NS + 1);
    client.outbound.releaseAll();

    assertThat(failed).containsOnlyKeys(0, 1, 2);
    assertThat(whole.refCnt()).isZero();
  }

  /** As single appends: a batch to a retained color retries for half its retention.ms at most. */
  @Test
  void shouldRetryABatchToARetainedColorForHalfItsRetentionAtMost() {
    ClientHarness retained = new ClientHarness(ClientHarness.retainedEvents(600));
    try {
      ByteBuf[] payloads = {Unpooled.wrappedBuffer(new byte[] {1})};
      retained.batches.append(EVENTS.name(), EVENTS.id(), EVENTS_A.id(), payloads, listener);
      retained.runLoop();
      retained.outbound.take(MessageType.APPEND_BATCH);

      retained.advance(300_000_000L);
      assertThat(failed).isEmpty();
      retained.advance(1);

      assertThat(failed.get(0))
          .isInstanceOf(FlexLogTimeoutException.class)
          .hasMessageContaining("within 300 ms (half the color's retention.ms) after");
    } finally {
      retained.close();
    }
  }

  @Test
  void shouldFailTheUnacknowledgedRecordsAtTheDeliveryDeadline() {
    List<Sent> sent = appendThree();
    ack(sent.get(0), 1, 0);
    ack(sent.get(1), 2, 0);

    client.advance(DELIVERY_TIMEOUT_NS + 1);

    assertThat(appended).containsOnlyKeys(0);
    assertThat(failed).containsOnlyKeys(1, 2);
    assertThat(failed.get(1))
        .isInstanceOf(FlexLogTimeoutException.class)
        .hasMessageContaining("each record may still appear, at most once");
  }

  @Test
  void shouldNotResendWhileTheAttemptWaitsUnwrittenAndCountTheTimeoutFromItsWrite() {
    client.outbound.holdWrites = true;
    List<Sent> sent = appendThree();
    long first = sent.get(0).requestId();
    ack(sent.get(0), 1, 0, 1, 2);

    // a stuck connection: many request timeouts pass, and no second copy joins the first
    for (int i = 0; i < 5; i++) {
      client.advance(REQUEST_TIMEOUT_NS + 1);
      assertThat(client.outbound.take(MessageType.APPEND_BATCH)).isEmpty();
    }
    assertThat(this.resent).isEmpty();
    assertThat(client.outbound.completeWrites(true)).isEqualTo(2);

    client.advance(REQUEST_TIMEOUT_NS - 1);
    assertThat(client.outbound.take(MessageType.APPEND_BATCH)).isEmpty();
    client.advance(2);
    List<Sent> resent = client.outbound.take(MessageType.APPEND_BATCH);
    assertThat(resent).extracting(Sent::node).containsExactly(2);
    assertThat(sequences(resent.get(0))).containsExactly(first, first + 1, first + 2);
    assertThat(appended).isEmpty();
  }

  @Test
  void shouldResendADroppedAttemptAtItsRequestTimeout() {
    client.outbound.holdWrites = true;
    appendThree();
    client.advance(REQUEST_TIMEOUT_NS / 2);
    assertThat(client.outbound.completeWrites(false)).isEqualTo(2);

    client.advance(REQUEST_TIMEOUT_NS / 2 + 1);

    assertThat(client.outbound.take(MessageType.APPEND_BATCH))
        .extracting(Sent::node)
        .containsExactly(1, 2);
  }

  @Test
  void shouldResendAtTheReconnectTimeOnlyWhatWaitsForTheLostReplica() {
    List<Sent> sent = appendThree();
    long first = sent.get(0).requestId();
    ack(sent.get(0), 1, 0, 1, 2);
    ack(sent.get(1), 2, 0);
    long soon = REQUEST_TIMEOUT_NS / 10;

    client.batches.onConnectionLost(1, client.clock.nanoTime() + soon);
    client.advance(soon + 1);
    assertThat(client.outbound.take(MessageType.APPEND_BATCH)).as("replica 1 acked all").isEmpty();

    client.batches.onConnectionLost(2, client.clock.nanoTime() + soon);
    client.advance(soon + 1);

    List<Sent> resent = client.outbound.take(MessageType.APPEND_BATCH);
    assertThat(resent).extracting(Sent::node).containsExactly(2);
    assertThat(resent.get(0).requestId()).isEqualTo(first);
    assertThat(sequences(resent.get(0))).containsExactly(first + 1, first + 2);
  }

  @Test
  void shouldWaitForTheFramesALostConnectionDropsAndNeverResendLaterThanTheRequestTimeout() {
    client.outbound.holdWrites = true;
    appendThree();
    long soon = REQUEST_TIMEOUT_NS / 10;

    client.batches.onConnectionLost(2, client.clock.nanoTime() + soon);
    client.advance(soon + 1);
    assertThat(client.outbound.take(MessageType.APPEND_BATCH))
        .as("frames not dropped yet")
        .isEmpty();
    assertThat(client.outbound.completeWrites(false)).isEqualTo(2);
    client.advance(1);
    assertThat(client.outbound.take(MessageType.APPEND_BATCH))
        .extracting(Sent::node)
        .containsExactly(1, 2);
    client.outbound.completeWrites(true);

    client.batches.onConnectionLost(2, client.clock.nanoTime() + 10 * REQUEST_TIMEOUT_NS);
    client.advance(REQUEST_TIMEOUT_NS + 1);
    assertThat(client.outbound.take(MessageType.APPEND_BATCH))
        .extracting(Sent::node)
        .containsExactly(1, 2);
    client.outbound.completeWrites(true);
  }

  @Test
  void shouldStillFailAnAttemptThatNeverLeavesAtTheDeliveryDeadline() {
    client.outbound.holdWrites = true;
    appendThree();

    client.advance(DELIVERY_TIMEOUT_NS + 1);

    assertThat(client.outbound.take(MessageType.APPEND_BATCH)).isEmpty();
    assertThat(failed).containsOnlyKeys(0, 1, 2);
    assertThat(failed.get(0)).isInstanceOf(FlexLogTimeoutException.class);
    client.outbound.completeWrites(false);
  }
}
