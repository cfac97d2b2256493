package io.flexlog.client.internals;

import static io.flexlog.client.internals.ClientHarness.ALLOC;
import static io.flexlog.client.internals.ClientHarness.LIVENESS_TIMEOUT_NS;
import static io.flexlog.client.internals.ClientHarness.ORDERS;
import static io.flexlog.client.internals.ClientHarness.ORDERS_A;
import static io.flexlog.client.internals.ClientHarness.ORDERS_B;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.client.LogRecord;
import io.flexlog.client.internals.RecordingOutbound.Sent;
import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.TrimmedException;
import io.flexlog.core.model.Shard;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.SubscribeDescriptor;
import io.flexlog.core.protocol.SubscribeProgressDescriptor;
import io.flexlog.core.protocol.SubscribeRecordsDescriptor;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The subscription role without sockets, frames routed through the {@link InboundDispatcher}:
 * release order across two shards, resumption after a lost connection or a silent replica (on the
 * manual clock), errors by stream id, and the client closing. Color {@code orders} has shards 10
 * (replicas 1-3) and 11 (4-6).
 */
class SubscriptionsTest {
  private final ClientHarness client = new ClientHarness();

  @AfterEach
  void release() {
    client.close();
  }

  private ClientSubscription subscribe(long fromSn) {
    ClientSubscription subscription = client.subscriptions.open("orders", fromSn);
    client.runLoop();
    return subscription;
  }

  /** The last SUBSCRIBE sent for a shard. */
  private static Sent openFor(List<Sent> sent, Shard shard) {
    Sent open = null;
    for (Sent s : sent) {
      if (s.type() == MessageType.SUBSCRIBE
          && SubscribeDescriptor.shardId(s.frame()) == shard.id()) {
        open = s;
      }
    }
    assertThat(open).as("a SUBSCRIBE for shard " + shard.id()).isNotNull();
    return open;
  }

  private void records(Sent open, long progress, long... sns) {
    byte[][] payloads = new byte[sns.length][];
    int bytes = 0;
    for (int i = 0; i < sns.length; i++) {
      payloads[i] = ("sn" + sns[i]).getBytes(StandardCharsets.US_ASCII);
      bytes += payloads[i].length;
    }
    int shard = SubscribeDescriptor.shardId(open.frame());
    ByteBuf frame =
        SubscribeRecordsDescriptor.encodeHeader(
            ALLOC, open.requestId(), ORDERS.id(), shard, progress, sns.length, bytes, bytes);
    for (int i = 0; i < sns.length; i++) {
      SubscribeRecordsDescriptor.writeEntry(frame, sns[i], payloads[i].length);
    }
    for (byte[] payload : payloads) {
      frame.writeBytes(payload);
    }
    client.deliver(frame);
  }

  private void progress(Sent open, long progress) {
    client.deliver(
        SubscribeProgressDescriptor.encode(
            ALLOC,
            open.requestId(),
            ORDERS.id(),
            SubscribeDescriptor.shardId(open.frame()),
            progress));
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

  @Test
  void shouldReleaseRecordsOfTwoShardsInSnOrderOncePastBothShardsProgress() {
    ClientSubscription subscription = subscribe(0);
    List<Sent> sent = client.outbound.take();
    Sent a = openFor(sent, ORDERS_A);
    Sent b = openFor(sent, ORDERS_B);
    assertThat(a.node()).isIn(ORDERS_A.replicaNodeIds());
    assertThat(b.node()).isIn(ORDERS_B.replicaNodeIds());

    records(a, 6, 1, 4, 6);
    assertThat(pollAll(subscription)).isEmpty(); // shard 11 may still hold SNs below 6
    records(b, 5, 2, 5);
    assertThat(pollAll(subscription)).containsExactly(1L, 2L, 4L, 5L);
    progress(b, 9);
    assertThat(pollAll(subscription)).containsExactly(6L);
    assertThat(subscription.lastSn()).isEqualTo(6);
  }

  @Test
  void shouldResumeALostStreamOnAnotherReplicaWithoutLossOrRepeats() {
    ClientSubscription subscription = subscribe(0);
    List<Sent> sent = client.outbound.take();
    Sent a = openFor(sent, ORDERS_A);
    Sent b = openFor(sent, ORDERS_B);
    records(a, 8, 3, 7);
    progress(b, 5);
    assertThat(pollAll(subscription)).containsExactly(3L);

    client.subscriptions.onConnectionLost(a.node());
    client.runLoop();

    Sent resumed = openFor(client.outbound.take(), ORDERS_A);
    assertThat(resumed.node()).isIn(ORDERS_A.replicaNodeIds()).isNotEqualTo(a.node());
    assertThat(SubscribeDescriptor.fromSn(resumed.frame())).isEqualTo(9);
    records(a, 20, 15); // the old stream's late frames no longer reach the subscription
    records(resumed, 12, 11);
    progress(b, 12);
    assertThat(pollAll(subscription)).containsExactly(7L, 11L);
  }

  @Test
  void shouldMoveASilentStreamToAnotherReplicaAfterTheLivenessTimeout() {
    ClientSubscription subscription = subscribe(0);
    List<Sent> sent = client.outbound.take();
    Sent a = openFor(sent, ORDERS_A);
    Sent b = openFor(sent, ORDERS_B);
    records(a, 2, 1, 2);
    progress(b, 2);
    assertThat(pollAll(subscription)).containsExactly(1L, 2L);

    client.advance(LIVENESS_TIMEOUT_NS / 2);
    progress(b, 3); // shard 11's replica keeps talking, shard 10's falls silent
    client.advance(LIVENESS_TIMEOUT_NS / 2);
    assertThat(client.outbound.take()).isEmpty(); // exactly the timeout: not yet
    client.advance(1);

    List<Sent> moved = client.outbound.take();
    assertThat(moved)
        .filteredOn(s -> s.type() == MessageType.UNSUBSCRIBE)
        .extracting(Sent::node, Sent::requestId)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(a.node(), a.requestId()));
    Sent resumed = openFor(moved, ORDERS_A);
    assertThat(resumed.node()).isNotEqualTo(a.node());
    assertThat(SubscribeDescriptor.fromSn(resumed.frame())).isEqualTo(3);
    assertThat(subscription.silentStreams()).isEqualTo(1);
  }

  @Test
  void shouldEndTheSubscriptionWithTheTypedErrorOfItsStream() {
    ClientSubscription subscription = subscribe(5);
    Sent a = openFor(client.outbound.take(), ORDERS_A);

    client.deliver(ErrorDescriptor.encode(ALLOC, a.requestId(), ErrorCode.TRIMMED, "below 9"));

    assertThatThrownBy(() -> subscription.poll(Duration.ZERO))
        .isInstanceOf(TrimmedException.class)
        .hasMessageContaining("below 9");
    assertThat(client.outbound.take())
        .filteredOn(s -> s.type() == MessageType.UNSUBSCRIBE)
        .hasSize(2);
  }

  @Test
  void shouldFailEverySubscriptionWhenTheClientCloses() {
    ClientSubscription open = subscribe(0);
    ClientSubscription late = client.subscriptions.open("orders", 0);

    client.subscriptions.failAll(new FlexLogException("the FlexLog client was closed"));
    client.runLoop();

    assertThatThrownBy(() -> open.poll(Duration.ZERO)).hasMessageContaining("closed");
    assertThatThrownBy(() -> late.poll(Duration.ZERO)).hasMessageContaining("closed");
    assertThat(client.subscriptions.active()).isZero();
  }
}
