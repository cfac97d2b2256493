package io.flexlog.client.internals;

import static io.flexlog.client.internals.ClientHarness.ALLOC;
import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.ReadDescriptor;
import io.netty.buffer.ByteBuf;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher: frame types no client role takes are refused (the Netty edge logs them), and an
 * ERROR reaches the role whose id range holds its request id, no other.
 */
class InboundDispatcherTest {
  private final ClientHarness client = new ClientHarness();

  @AfterEach
  void release() {
    client.close();
  }

  private boolean dispatch(ByteBuf frame) {
    try {
      return client.inbound.onFrame(frame);
    } finally {
      frame.release();
    }
  }

  @Test
  void shouldRefuseAFrameTypeNoClientRoleTakes() {
    assertThat(dispatch(ReadDescriptor.encode(ALLOC, 1, 1, 1))).isFalse();
    assertThat(dispatch(FrameDescriptor.allocate(ALLOC, MessageType.METADATA_REQUEST, 1, 0)))
        .isFalse();
  }

  @Test
  void shouldRouteAnErrorByItsRequestIdsRange() {
    CompletableFuture<Optional<io.flexlog.client.LogRecord>> read = client.reads.read("events", 1);
    CompletableFuture<Long> append =
        client.appends.append("events", null, io.netty.buffer.Unpooled.wrappedBuffer(new byte[1]));
    client.runLoop();
    long readId = client.outbound.take(MessageType.READ).get(0).requestId();
    assertThat(readId).isGreaterThanOrEqualTo(RequestIds.READ_BASE);

    assertThat(dispatch(ErrorDescriptor.encode(ALLOC, 0, ErrorCode.PROTOCOL, "bad frame")))
        .isTrue(); // a connection-level error: logged, no request ends
    assertThat(dispatch(ErrorDescriptor.encode(ALLOC, readId, ErrorCode.PROTOCOL, "bad read")))
        .isTrue();

    assertThat(ClientHarness.failure(read)).hasMessage("bad read");
    assertThat(append).isNotDone();
  }
}
