package io.flexlog.core.error;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class FlexLogExceptionTest {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "PROTOCOL, ProtocolException",
    "UNKNOWN_COLOR, UnknownColorException",
    "RECORD_TOO_LARGE, RecordTooLargeException",
    "STORAGE_FULL, StorageFullException",
    "NOT_READY, NotReadyException",
    "TRIMMED, TrimmedException",
    "INVALID_ARGUMENT, InvalidArgumentException",
    "COLOR_EXISTS, ColorExistsException",
    "NOT_ENOUGH_NODES, NotEnoughNodesException",
    "GROUP_ABORTED, GroupAbortedException",
    "ATOMIC_OUTCOME_UNKNOWN, AtomicOutcomeUnknownException",
    "ATOMIC_MEMBER_FAILED, AtomicMemberFailedException",
  })
  void fromWireMapsCodeToItsTypedExceptionKeepingCodeAndMessage(
      ErrorCode code, String simpleClassName) {
    FlexLogException e = FlexLogException.fromWire(code, "details");

    assertThat(e.getClass().getSimpleName()).isEqualTo(simpleClassName);
    assertThat(e.code()).isEqualTo(code);
    assertThat(e).hasMessage("details");
  }

  @ParameterizedTest
  @EnumSource(
      value = ErrorCode.class,
      names = {"UNKNOWN_SHARD", "INTERNAL"})
  void fromWireMapsCodesWithoutTypedExceptionToBaseExceptionNamingTheCode(ErrorCode code) {
    FlexLogException e = FlexLogException.fromWire(code, "details");

    assertThat(e.getClass()).isEqualTo(FlexLogException.class);
    assertThat(e).hasMessage(code.name() + ": details");
  }

  @Test
  void everyWireCodeHasAMapping() {
    for (ErrorCode code : ErrorCode.values()) {
      assertThat(FlexLogException.fromWire(code, "m")).isNotNull();
    }
  }

  @Test
  void wireValuesAreFixed() {
    assertThat(EnumSet.allOf(ErrorCode.class))
        .extracting(c -> c.name() + "=" + c.code())
        .containsExactly(
            "PROTOCOL=1",
            "UNKNOWN_COLOR=2",
            "RECORD_TOO_LARGE=3",
            "STORAGE_FULL=4",
            "NOT_READY=5",
            "TRIMMED=6",
            "UNKNOWN_SHARD=7",
            "INTERNAL=8",
            "INVALID_ARGUMENT=9",
            "COLOR_EXISTS=20",
            "NOT_ENOUGH_NODES=21",
            "METADATA_UNAVAILABLE=22",
            "GROUP_ABORTED=30",
            "ATOMIC_OUTCOME_UNKNOWN=31",
            "ATOMIC_MEMBER_FAILED=32");
  }

  @ParameterizedTest
  @EnumSource(ErrorCode.class)
  void ofReturnsTheCodeForItsWireValue(ErrorCode code) {
    assertThat(ErrorCode.of(code.code())).isEqualTo(code);
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 10, -1, 0xFFFF})
  void ofMapsUnknownWireValuesToInternal(int value) {
    assertThat(ErrorCode.of(value)).isEqualTo(ErrorCode.INTERNAL);
  }

  @Test
  void everyTypedExceptionIsAFlexLogExceptionAndTimeoutHasNoWireCode() {
    assertThat(new FlexLogTimeoutException("t")).isInstanceOf(FlexLogException.class);
    assertThat(new FlexLogTimeoutException("t").code()).isEqualTo(ErrorCode.INTERNAL);
    assertThat(new FlexLogException("x", new IllegalStateException()).getCause())
        .isInstanceOf(IllegalStateException.class);
  }
}
