package io.flexlog.sequencer.ordering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.ProtocolException;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;

class ChildRegistryTest {
  private final ChildRegistry registry = new ChildRegistry();

  private static PeerLink link() {
    return PeerLink.inbound(
        new Outbound() {
          @Override
          public void write(ByteBuf frame) {
            frame.release();
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        });
  }

  @Test
  void shouldAdmitARequestIdOnceAndAnswerItAgainWithItsRange() {
    PeerLink link = link();
    assertThat(registry.identify(link, 4, 7)).isNull();
    ChildRegistry.Child child = registry.current(link);

    assertThat(registry.admit(child, 1, 1)).isEqualTo(ChildRegistry.NEW);
    assertThat(registry.admit(child, 1, 1)).isEqualTo(ChildRegistry.PENDING);
    registry.answered(4, 7, 1, 99L);
    assertThat(registry.admit(child, 1, 1)).isEqualTo(99L);
  }

  @Test
  void shouldKeepAnswersAcrossReconnectsOfOneIncarnation() {
    PeerLink first = link();
    registry.identify(first, 4, 7);
    registry.admit(registry.current(first), 1, 1);
    registry.answered(4, 7, 1, 99L);
    registry.onClosed(first);

    PeerLink second = link();
    assertThat(registry.identify(second, 4, 7)).isNull();

    assertThat(registry.current(first)).isNull();
    assertThat(registry.linkOf(4, 7)).isSameAs(second);
    assertThat(registry.admit(registry.current(second), 1, 1)).isEqualTo(99L);
  }

  @Test
  void shouldForgetTheRequestsOfAnEarlierIncarnationAndRefuseAnOlderOne() {
    PeerLink first = link();
    registry.identify(first, 4, 7);
    registry.admit(registry.current(first), 1, 1);
    registry.answered(4, 7, 1, 99L);

    PeerLink restarted = link();
    assertThat(registry.identify(restarted, 4, 8)).isNull();
    assertThat(registry.admit(registry.current(restarted), 1, 1)).isEqualTo(ChildRegistry.NEW);
    registry.answered(4, 7, 1, 55L);
    assertThat(registry.linkOf(4, 7)).as("the old incarnation gets no answers").isNull();

    Rejection stale = registry.identify(link(), 4, 7);
    assertThat(stale.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(stale.message()).contains("incarnation 7 but incarnation 8 already connected");
  }

  @Test
  void shouldForgetAnswersBelowTheOldestOutstandingAndRefuseThemAfterwards() {
    PeerLink link = link();
    registry.identify(link, 4, 7);
    ChildRegistry.Child child = registry.current(link);
    for (long id = 1; id <= 4; id++) {
      registry.admit(child, id, 1);
      registry.answered(4, 7, id, 10 * id);
    }

    assertThat(registry.admit(child, 5, 4)).isEqualTo(ChildRegistry.NEW);

    assertThat(child.answers.size()).isEqualTo(2);
    assertThat(registry.admit(child, 4, 4)).isEqualTo(40L);
    assertThatThrownBy(() -> registry.admit(child, 3, 4))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("re-sent range request 3 after reporting every request below 4");
  }

  @Test
  void shouldAdmitARefusedRequestAgain() {
    PeerLink link = link();
    registry.identify(link, 4, 7);
    ChildRegistry.Child child = registry.current(link);
    registry.admit(child, 1, 1);

    registry.refused(4, 7, 1);

    assertThat(registry.admit(child, 1, 1)).isEqualTo(ChildRegistry.NEW);
  }

  @Test
  void shouldRefuseToIdentifyAReplicaConnectionAsAChild() {
    PeerLink link = link();
    link.identifyReplica(100);

    assertThat(registry.identify(link, 4, 7).message())
        .contains("cannot identify it as sequencer node 4");
  }
}
