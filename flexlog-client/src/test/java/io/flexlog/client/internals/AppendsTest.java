package io.flexlog.client.internals;

import static io.flexlog.client.internals.ClientHarness.ALLOC;
import static io.flexlog.client.internals.ClientHarness.DELIVERY_TIMEOUT_NS;
import static io.flexlog.client.internals.ClientHarness.EVENTS;
import static io.flexlog.client.internals.ClientHarness.EVENTS_A;
import static io.flexlog.client.internals.ClientHarness.REQUEST_TIMEOUT_NS;
import static io.flexlog.client.internals.ClientHarness.SESSION;
import static io.flexlog.client.internals.ClientHarness.failure;
import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.internals.RecordingOutbound.Sent;
import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.FlexLogTimeoutException;
import io.flexlog.core.error.RecordTooLargeException;
import io.flexlog.core.error.StorageFullException;
import io.flexlog.core.error.UnknownColorException;
import io.flexlog.core.protocol.AppendAckDescriptor;
import io.flexlog.core.protocol.AppendDescriptor;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The append role without sockets: which replicas get the record under which token, when the future
 * completes, and how it fails (mismatched SNs, typed errors, deadlines on the manual clock). Color
 * {@code events} has one shard, 20, on replicas 1 and 2.
 */
class AppendsTest {
  private final ClientHarness client = new ClientHarness();

  @AfterEach
  void release() {
    client.close();
  }

  private CompletableFuture<Long> append(String color, String payload) {
    CompletableFuture<Long> future =
        client.appends.append(
            color, null, Unpooled.wrappedBuffer(payload.getBytes(StandardCharsets.UTF_8)));
    client.runLoop();
    return future;
  }

  private void ack(Sent append, long sn) {
    client.deliver(
        AppendAckDescriptor.encode(
            ALLOC,
            append.requestId(),
            AppendDescriptor.tokenSession(append.frame()),
            AppendDescriptor.tokenSequence(append.frame()),
            sn,
            EVENTS.id(),
            append.node()));
  }

  private void error(Sent append, ErrorCode code) {
    client.deliver(ErrorDescriptor.encode(ALLOC, append.requestId(), code, "test says " + code));
  }

  @Test
  void shouldSendTheRecordToEveryReplicaOfItsShardUnderOneToken() {
    append("events", "hello");

    List<Sent> sent = client.outbound.take();
    assertThat(sent).extracting(Sent::node).containsExactly(1, 2);
    for (Sent s : sent) {
      assertThat(s.type()).isEqualTo(MessageType.APPEND);
      assertThat(AppendDescriptor.tokenSession(s.frame())).isEqualTo(SESSION);
      assertThat(AppendDescriptor.tokenSequence(s.frame())).isEqualTo(s.requestId()).isEqualTo(1);
      assertThat(AppendDescriptor.colorId(s.frame())).isEqualTo(EVENTS.id());
      assertThat(AppendDescriptor.shardId(s.frame())).isEqualTo(EVENTS_A.id());
      ByteBuf payload =
          s.frame().slice(FrameDescriptor.body(s.frame()) + AppendDescriptor.PAYLOAD_OFFSET, 5);
      assertThat(ByteBufUtil.getBytes(payload)).isEqualTo("hello".getBytes(StandardCharsets.UTF_8));
    }
  }

  @Test
  void shouldCompleteOnlyOnceEveryReplicaAckedTheSameSn() {
    CompletableFuture<Long> future = append("events", "a");
    List<Sent> sent = client.outbound.take();

    ack(sent.get(0), 7);
    assertThat(future).isNotDone();
    ack(sent.get(0), 7); // a duplicate ack from the same replica counts once
    assertThat(future).isNotDone();
    ack(sent.get(1), 7);

    assertThat(future).isCompletedWithValue(7L);
    assertThat(client.appends.inFlight()).isZero();
  }

  @Test
  void shouldFailWhenTheReplicasAckDifferentSns() {
    CompletableFuture<Long> future = append("events", "a");
    List<Sent> sent = client.outbound.take();

    ack(sent.get(0), 7);
    ack(sent.get(1), 8);

    assertThat(failure(future))
        .isExactlyInstanceOf(FlexLogException.class)
        .hasMessageContaining("acknowledged different SNs (7, 8)");
    assertThat(client.appends.inFlight()).isZero();
  }

  @Test
  void shouldResendOnlyToTheReplicasThatHaveNotAckedOnceTheRequestTimesOut() {
    CompletableFuture<Long> future = append("events", "a");
    List<Sent> sent = client.outbound.take();
    ack(sent.get(0), 3);

    client.advance(REQUEST_TIMEOUT_NS);
    assertThat(client.outbound.take()).isEmpty(); // exactly the timeout: not yet
    client.advance(1);

    List<Sent> resent = client.outbound.take();
    assertThat(resent).extracting(Sent::node).containsExactly(2);
    assertThat(resent.get(0).requestId()).isEqualTo(sent.get(1).requestId()); // the same token
    ack(resent.get(0), 3);
    assertThat(future).isCompletedWithValue(3L);
  }

  @Test
  void shouldResendToAReplicaWhoseConnectionWasLostAtTheReconnectTimeNotTheRequestTimeout() {
    CompletableFuture<Long> future = append("events", "a");
    List<Sent> sent = client.outbound.take();
    ack(sent.get(0), 3);
    long soon = REQUEST_TIMEOUT_NS / 10;

    client.appends.onConnectionLost(1, client.clock.nanoTime() + soon);
    client.advance(soon + 1);
    assertThat(client.outbound.take()).as("replica 1 acked: nothing to send it").isEmpty();

    client.appends.onConnectionLost(2, client.clock.nanoTime() + soon);
    client.advance(soon);
    assertThat(client.outbound.take()).isEmpty(); // exactly the reconnect time: not yet
    client.advance(1);

    List<Sent> resent = client.outbound.take();
    assertThat(resent).extracting(Sent::node).containsExactly(2);
    assertThat(resent.get(0).requestId()).isEqualTo(sent.get(1).requestId()); // the same token
    ack(resent.get(0), 3);
    assertThat(future).isCompletedWithValue(3L);
  }

  @Test
  void shouldWaitForAnUnwrittenAttemptBeforeSendingItAgain() {
    client.outbound.holdWrites = true;
    CompletableFuture<Long> future = append("events", "a");
    List<Sent> sent = client.outbound.take();
    ack(sent.get(0), 3);

    client.advance(REQUEST_TIMEOUT_NS * 3);
    assertThat(client.outbound.take()).isEmpty(); // still in the outbound buffer: no copy
    client.outbound.completeWrites(true);
    client.advance(REQUEST_TIMEOUT_NS);
    assertThat(client.outbound.take()).isEmpty(); // the timeout counts from the write
    client.advance(1);

    List<Sent> resent = client.outbound.take();
    assertThat(resent).extracting(Sent::node).containsExactly(2);
    client.outbound.completeWrites(true);
    ack(resent.get(0), 3);
    assertThat(future).isCompletedWithValue(3L);
  }

  @Test
  void shouldFailWithATimeoutAtTheDeliveryDeadline() {
    CompletableFuture<Long> future = append("events", "a");
    client.outbound.take();

    for (long waited = 0; waited < DELIVERY_TIMEOUT_NS; waited += REQUEST_TIMEOUT_NS / 2) {
      client.advance(REQUEST_TIMEOUT_NS / 2);
    }
    assertThat(future).isNotDone(); // exactly the deadline: not yet
    client.advance(1);

    assertThat(failure(future))
        .isInstanceOf(FlexLogTimeoutException.class)
        .hasMessageContaining("within 1000 ms after");
    assertThat(client.appends.inFlight()).isZero();
  }

  /**
   * A retry after retention removed the record from every replica that has it would be stored again
   * by a replica that missed it, so an append to a retained color retries for at most half of its
   * retention.ms (docs/architecture.md#retention, "Retries").
   */
  @Test
  void shouldRetryAnAppendToARetainedColorForHalfItsRetentionAtMost() {
    ClientHarness retained = new ClientHarness(ClientHarness.retainedEvents(400));
    try {
      CompletableFuture<Long> future =
          retained.appends.append(
              "events", null, Unpooled.wrappedBuffer("a".getBytes(StandardCharsets.UTF_8)));
      retained.runLoop();
      retained.outbound.take();

      retained.advance(200_000_000L);
      assertThat(future).isNotDone();
      retained.advance(1);

      assertThat(failure(future))
          .isInstanceOf(FlexLogTimeoutException.class)
          .hasMessageContaining("within 200 ms (half the color's retention.ms) after");
    } finally {
      retained.close();
    }
  }

  @Test
  void shouldFailWithTheTypedErrorAReplicaAnswers() {
    CompletableFuture<Long> future = append("events", "a");
    Sent first = client.outbound.take().get(0);

    error(first, ErrorCode.NOT_READY); // the replica is synchronising: keep trying
    assertThat(future).isNotDone();
    error(first, ErrorCode.STORAGE_FULL);

    assertThat(failure(future)).isInstanceOf(StorageFullException.class);
  }

  @Test
  void shouldRefreshTheTopologyOnUnknownColorAndRetryWhenTheColorStillExists() {
    CompletableFuture<Long> future = append("events", "a");
    List<Sent> sent = client.outbound.take();

    error(sent.get(0), ErrorCode.UNKNOWN_COLOR);
    error(sent.get(1), ErrorCode.UNKNOWN_COLOR); // one refresh per append
    assertThat(client.fetches).hasSize(1);
    assertThat(client.outbound.take()).isEmpty();

    client.completeFetch(ClientHarness.topology(2, true)); // the node was behind, not us
    List<Sent> retried = client.outbound.take();
    assertThat(retried).extracting(Sent::node).containsExactly(1, 2);
    ack(retried.get(0), 5);
    ack(retried.get(1), 5);
    assertThat(future).isCompletedWithValue(5L);
  }

  @Test
  void shouldFailWithUnknownColorWhenTheRefreshedTopologyLacksTheColor() {
    CompletableFuture<Long> future = append("events", "a");
    error(client.outbound.take().get(0), ErrorCode.UNKNOWN_COLOR);

    client.completeFetch(ClientHarness.topology(2, false));

    assertThat(client.applied).extracting(t -> t.version()).containsExactly(2L);
    assertThat(failure(future)).isInstanceOf(UnknownColorException.class);
  }

  @Test
  void shouldRefreshOnceForAColorItDoesNotKnowYetAndThenAppend() {
    ClientHarness old = new ClientHarness(ClientHarness.topology(1, false));
    try {
      CompletableFuture<Long> future =
          old.appends.append("events", null, Unpooled.wrappedBuffer(new byte[] {1}));
      old.runLoop();
      assertThat(old.outbound.take()).isEmpty();

      old.completeFetch(ClientHarness.topology(2, true));

      assertThat(old.outbound.take()).extracting(Sent::node).containsExactly(1, 2);
      assertThat(future).isNotDone();
    } finally {
      old.close();
    }
  }

  @Test
  void shouldRefuseARecordOverTheClustersLimitWithoutSendingIt() {
    CompletableFuture<Long> future =
        client.appends.append(
            "events", null, Unpooled.wrappedBuffer(new byte[ClientHarness.MAX_RECORD_BYTES + 1]));
    client.runLoop();

    assertThat(failure(future)).isInstanceOf(RecordTooLargeException.class);
    assertThat(client.outbound.take()).isEmpty();
  }

  @Test
  void shouldIgnoreAcksOfAnotherSession() {
    CompletableFuture<Long> future = append("events", "a");
    Sent sent = client.outbound.take().get(0);

    client.deliver(
        AppendAckDescriptor.encode(
            ALLOC, sent.requestId(), SESSION + 1, sent.requestId(), 9, EVENTS.id(), sent.node()));

    assertThat(client.appends.inFlight()).isEqualTo(1);
    assertThat(future).isNotDone();
  }
}
