package io.flexlog.replica.atomic;

import static io.flexlog.replica.atomic.AtomicHarness.LEFT;
import static io.flexlog.replica.atomic.AtomicHarness.RIGHT;
import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Topology;
import org.junit.jupiter.api.Test;

/** Which results of a forwarded member are retried and which fail it for good. */
class ForwardErrorsTest {
  private final Topology full = AtomicHarness.topology(true);
  private final Topology withoutRight = AtomicHarness.topology(false);

  @Test
  void shouldTreatRefusalsOfTheRecordItselfAsPermanent() {
    for (ErrorCode code :
        new ErrorCode[] {
          ErrorCode.RECORD_TOO_LARGE, ErrorCode.INVALID_ARGUMENT, ErrorCode.PROTOCOL
        }) {
      assertThat(ForwardErrors.isPermanent(code, full, LEFT, LEFT)).as(code.name()).isTrue();
    }
  }

  @Test
  void shouldTreatOverloadAndFailuresOfTheTargetAsTransient() {
    for (ErrorCode code :
        new ErrorCode[] {ErrorCode.NOT_READY, ErrorCode.STORAGE_FULL, ErrorCode.INTERNAL}) {
      assertThat(ForwardErrors.isPermanent(code, withoutRight, RIGHT, RIGHT))
          .as(code.name())
          .isFalse();
    }
  }

  @Test
  void shouldTreatAnUnknownTargetAsPermanentOnlyIfThisReplicaDoesNotKnowItEither() {
    for (ErrorCode code : new ErrorCode[] {ErrorCode.UNKNOWN_COLOR, ErrorCode.UNKNOWN_SHARD}) {
      assertThat(ForwardErrors.isPermanent(code, full, RIGHT, RIGHT))
          .as("lagging target")
          .isFalse();
      assertThat(ForwardErrors.isPermanent(code, withoutRight, RIGHT, RIGHT)).isTrue();
    }
  }

  @Test
  void shouldNameWhatIsGoneFromTheTopology() {
    assertThat(ForwardErrors.targetGone(full, RIGHT, RIGHT)).isNull();
    assertThat(ForwardErrors.targetGone(withoutRight, RIGHT, RIGHT))
        .isEqualTo(ErrorCode.UNKNOWN_COLOR);
    assertThat(ForwardErrors.targetGone(full, RIGHT, 42)).isEqualTo(ErrorCode.UNKNOWN_SHARD);
    assertThat(ForwardErrors.targetGone(full, RIGHT, LEFT))
        .as("a shard outside the color's subtree")
        .isEqualTo(ErrorCode.UNKNOWN_SHARD);
  }
}
