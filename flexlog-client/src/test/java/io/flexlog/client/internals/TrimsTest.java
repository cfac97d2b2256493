package io.flexlog.client.internals;

import static io.flexlog.client.internals.ClientHarness.ALLOC;
import static io.flexlog.client.internals.ClientHarness.ORDERS;
import static io.flexlog.client.internals.ClientHarness.REQUEST_TIMEOUT_NS;
import static io.flexlog.client.internals.ClientHarness.failure;
import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.TrimResult;
import io.flexlog.client.internals.RecordingOutbound.Sent;
import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.FlexLogTimeoutException;
import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.core.error.StorageFullException;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.TrimDescriptor;
import io.flexlog.core.protocol.TrimResponseDescriptor;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The trim role without sockets: a TRIM to every replica node of the color's subtree, the answers
 * aggregated into one result, a refusal's typed error, the deadline on the manual clock.
 */
class TrimsTest {
  private final ClientHarness client = new ClientHarness();

  @AfterEach
  void release() {
    client.close();
  }

  private CompletableFuture<TrimResult> trim(long sn) {
    CompletableFuture<TrimResult> future = client.trims.trim("orders", sn);
    client.runLoop();
    return future;
  }

  private void answer(Sent trim, long trimPoint, long tail) {
    client.deliver(
        TrimResponseDescriptor.encode(ALLOC, trim.requestId(), ORDERS.id(), trimPoint, tail));
  }

  @Test
  void shouldTrimEveryReplicaNodeAndReportTheLowestTrimPointAndHighestTail() {
    CompletableFuture<TrimResult> future = trim(100);

    List<Sent> sent = client.outbound.take();
    assertThat(sent).extracting(Sent::node).containsExactly(1, 2, 3, 4, 5, 6);
    assertThat(sent).allMatch(s -> s.type() == MessageType.TRIM);
    assertThat(sent).allMatch(s -> TrimDescriptor.sn(s.frame()) == 100);
    assertThat(sent).allMatch(s -> TrimDescriptor.colorId(s.frame()) == ORDERS.id());
    for (int i = 0; i < sent.size(); i++) {
      assertThat(future).isNotDone();
      answer(sent.get(i), 100 - i, 200 + i);
      answer(sent.get(i), 0, 0); // a repeated answer counts once
    }

    assertThat(future.join()).isEqualTo(new TrimResult("orders", 95, 205));
    assertThat(client.trims.inFlight()).isZero();
  }

  @Test
  void shouldFailWithTheRefusingNodesTypedError() {
    CompletableFuture<TrimResult> future = trim(100);
    List<Sent> sent = client.outbound.take();
    answer(sent.get(0), 100, 100);

    client.deliver(
        ErrorDescriptor.encode(ALLOC, sent.get(3).requestId(), ErrorCode.STORAGE_FULL, "full"));

    assertThat(failure(future))
        .isInstanceOf(StorageFullException.class)
        .hasMessageContaining("refused by replica node 4: full");
    assertThat(client.trims.inFlight()).isZero();
  }

  @Test
  void shouldFailWithATimeoutNamingTheNodesThatDidNotAnswer() {
    CompletableFuture<TrimResult> future = trim(100);
    List<Sent> sent = client.outbound.take();
    for (int i = 0; i < 4; i++) {
      answer(sent.get(i), 100, 100);
    }

    client.advance(REQUEST_TIMEOUT_NS);
    assertThat(future).isNotDone();
    client.advance(1);

    assertThat(failure(future))
        .isInstanceOf(FlexLogTimeoutException.class)
        .hasMessageContaining("not acknowledged by replica nodes [5, 6] within 100 ms");
  }

  @Test
  void shouldRefuseATrimBelowSnOneWithoutSending() {
    assertThat(failure(trim(0))).isInstanceOf(InvalidArgumentException.class);
    assertThat(client.outbound.take()).isEmpty();
  }
}
