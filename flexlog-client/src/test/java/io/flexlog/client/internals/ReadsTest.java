package io.flexlog.client.internals;

import static io.flexlog.client.internals.ClientHarness.ALLOC;
import static io.flexlog.client.internals.ClientHarness.ORDERS;
import static io.flexlog.client.internals.ClientHarness.ORDERS_A;
import static io.flexlog.client.internals.ClientHarness.ORDERS_B;
import static io.flexlog.client.internals.ClientHarness.READ_TIMEOUT_NS;
import static io.flexlog.client.internals.ClientHarness.failure;
import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.LogRecord;
import io.flexlog.client.internals.RecordingOutbound.Sent;
import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.FlexLogTimeoutException;
import io.flexlog.core.error.TrimmedException;
import io.flexlog.core.error.UnknownColorException;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.ReadDescriptor;
import io.flexlog.core.protocol.ReadResponseDescriptor;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The read role without sockets: one READ per shard of the color's subtree, the record, a hole once
 * every shard answered ABSENT, retries on RETRY (next replica, then backoff on the manual clock),
 * and the read deadline. Color {@code orders} has shards 10 (replicas 1-3) and 11 (4-6).
 */
class ReadsTest {
  private static final long MS = 1_000_000L;
  private final ClientHarness client = new ClientHarness();

  @AfterEach
  void release() {
    client.close();
  }

  private CompletableFuture<Optional<LogRecord>> read(long sn) {
    CompletableFuture<Optional<LogRecord>> future = client.reads.read("orders", sn);
    client.runLoop();
    return future;
  }

  private void answer(Sent read, byte status, long bound, String payload) {
    byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
    ByteBuf frame =
        ReadResponseDescriptor.encodeHeader(
            ALLOC,
            read.requestId(),
            status,
            ORDERS.id(),
            ReadDescriptor.sn(read.frame()),
            bound,
            bytes.length);
    frame.writeBytes(bytes);
    client.deliver(frame);
  }

  /** The READ of one shard among those sent (by the replicas it went to). */
  private static Sent toShard(List<Sent> sent, List<Integer> replicas) {
    return sent.stream().filter(s -> replicas.contains(s.node())).findFirst().orElseThrow();
  }

  @Test
  void shouldAskOneReplicaOfEveryShardAndReturnTheRecordFound() {
    CompletableFuture<Optional<LogRecord>> future = read(42);

    List<Sent> sent = client.outbound.take();
    assertThat(sent).hasSize(2).allMatch(s -> s.type() == MessageType.READ);
    assertThat(sent).allMatch(s -> ReadDescriptor.sn(s.frame()) == 42);
    Sent toB = toShard(sent, ORDERS_B.replicaNodeIds());
    answer(toB, ReadResponseDescriptor.FOUND, 0, "hello");

    LogRecord record = future.join().orElseThrow();
    assertThat(record.color()).isEqualTo("orders");
    assertThat(record.sn()).isEqualTo(42);
    assertThat(new String(record.payload(), StandardCharsets.UTF_8)).isEqualTo("hello");
    assertThat(client.reads.inFlight()).isZero();
  }

  @Test
  void shouldReturnAHoleOnlyOnceEveryShardAnsweredAbsent() {
    CompletableFuture<Optional<LogRecord>> future = read(5);
    List<Sent> sent = client.outbound.take();

    answer(toShard(sent, ORDERS_A.replicaNodeIds()), ReadResponseDescriptor.ABSENT, 0, "");
    assertThat(future).isNotDone();
    answer(toShard(sent, ORDERS_B.replicaNodeIds()), ReadResponseDescriptor.ABSENT, 0, "");

    assertThat(future).isCompletedWithValue(Optional.empty());
  }

  @Test
  void shouldAskTheNextReplicaOnRetryAndBackOffOnceEachWasAsked() {
    CompletableFuture<Optional<LogRecord>> future = read(5);
    Sent toA = toShard(client.outbound.take(), ORDERS_A.replicaNodeIds());

    answer(toA, ReadResponseDescriptor.RETRY, 0, "");
    Sent second = client.outbound.take().get(0);
    assertThat(second.node()).isIn(ORDERS_A.replicaNodeIds()).isNotEqualTo(toA.node());
    assertThat(second.requestId()).isEqualTo(toA.requestId());
    answer(second, ReadResponseDescriptor.RETRY, 0, "");
    Sent third = client.outbound.take().get(0);
    assertThat(third.node()).isNotIn(toA.node(), second.node());

    answer(third, ReadResponseDescriptor.RETRY, 0, "");
    assertThat(client.outbound.take()).isEmpty(); // every replica asked: back off 1 ms
    assertThat(client.loop.delayed()).isEqualTo(1);
    client.advance(MS - 1);
    assertThat(client.outbound.take()).isEmpty();
    client.advance(1);
    Sent again = client.outbound.take().get(0);
    assertThat(again.node()).isEqualTo(toA.node()); // round the replicas again
    assertThat(client.outbound.flushes).isPositive();

    answer(again, ReadResponseDescriptor.FOUND, 0, "x");
    assertThat(future.join()).isPresent();
  }

  @Test
  void shouldAskTheNextReplicaAtOnceWhenTheConnectionToTheAskedOneIsLost() {
    CompletableFuture<Optional<LogRecord>> future = read(5);
    List<Sent> sent = client.outbound.take();
    Sent toA = toShard(sent, ORDERS_A.replicaNodeIds());
    Sent toB = toShard(sent, ORDERS_B.replicaNodeIds());

    client.reads.onConnectionLost(toA.node()); // refused, reset, or closed: no answer will come
    Sent next = client.outbound.take().get(0);
    assertThat(next.node()).isIn(ORDERS_A.replicaNodeIds()).isNotEqualTo(toA.node());
    assertThat(next.requestId()).isEqualTo(toA.requestId());

    client.reads.onConnectionLost(99); // a node no read waits for changes nothing
    assertThat(client.outbound.take()).isEmpty();

    answer(next, ReadResponseDescriptor.ABSENT, 0, "");
    answer(toB, ReadResponseDescriptor.ABSENT, 0, "");
    assertThat(future).isCompletedWithValue(Optional.empty());
  }

  @Test
  void shouldFailWithTrimmedNamingTheTrimPoint() {
    CompletableFuture<Optional<LogRecord>> future = read(5);

    answer(client.outbound.take().get(0), ReadResponseDescriptor.TRIMMED, 9, "");

    assertThat(failure(future))
        .isInstanceOf(TrimmedException.class)
        .hasMessageContaining("at or below the trim point 9");
  }

  @Test
  void shouldFailWithATimeoutAtTheReadDeadline() {
    CompletableFuture<Optional<LogRecord>> future = read(5);
    client.outbound.take();

    client.advance(READ_TIMEOUT_NS);
    assertThat(future).isNotDone();
    client.advance(1);

    assertThat(failure(future))
        .isInstanceOf(FlexLogTimeoutException.class)
        .hasMessageContaining("still undecided after 500 ms");
    assertThat(client.reads.inFlight()).isZero();
  }

  @Test
  void shouldRefreshOnUnknownShardAndReadTheColorsShardsAfresh() {
    CompletableFuture<Optional<LogRecord>> future = read(5);
    Sent first = client.outbound.take().get(0);

    client.deliver(
        ErrorDescriptor.encode(ALLOC, first.requestId(), ErrorCode.UNKNOWN_SHARD, "which shard?"));
    assertThat(client.fetches).hasSize(1);
    client.completeFetch(ClientHarness.topology(2, true));

    List<Sent> again = client.outbound.take();
    assertThat(again).hasSize(2);
    assertThat(again).allMatch(s -> s.requestId() >= RequestIds.READ_BASE + 2); // fresh ids
    assertThat(future).isNotDone();
  }

  @Test
  void shouldFailWithUnknownColorWhenTheColorIsGoneAfterTheRefresh() {
    ClientHarness client = new ClientHarness();
    try {
      CompletableFuture<Optional<LogRecord>> future = client.reads.read("events", 1);
      client.runLoop();
      Sent sent = client.outbound.take().get(0);
      client.deliver(
          ErrorDescriptor.encode(ALLOC, sent.requestId(), ErrorCode.UNKNOWN_COLOR, "gone"));

      client.completeFetch(ClientHarness.topology(2, false));

      assertThat(failure(future)).isInstanceOf(UnknownColorException.class);
    } finally {
      client.close();
    }
  }
}
