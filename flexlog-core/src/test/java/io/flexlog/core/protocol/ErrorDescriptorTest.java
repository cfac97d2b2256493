package io.flexlog.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.error.ErrorCode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ErrorDescriptorTest {

  @Test
  void shouldTruncateOverlongMessageToTheLargestLengthTheFieldHolds() {
    String message = "x".repeat(70_000);

    ByteBuf frame =
        ErrorDescriptor.encode(UnpooledByteBufAllocator.DEFAULT, 1, ErrorCode.INTERNAL, message);
    try {
      ErrorDescriptor.validate(frame);
      assertThat(ErrorDescriptor.message(frame))
          .isEqualTo("x".repeat(ErrorDescriptor.MAX_MESSAGE_BYTES));
    } finally {
      frame.release();
    }
  }

  /**
   * 40,000 two-byte characters are 80,000 UTF-8 bytes; cutting at 65,535 bytes splits the last
   * character. The wire must carry well-formed UTF-8: a prefix of the original message.
   */
  @Test
  void shouldTruncateOverlongMessageOnACharacterBoundary() {
    String message = "\u00e9".repeat(40_000);

    ByteBuf frame =
        ErrorDescriptor.encode(UnpooledByteBufAllocator.DEFAULT, 1, ErrorCode.INTERNAL, message);
    try {
      ErrorDescriptor.validate(frame);
      String decoded = ErrorDescriptor.message(frame);
      assertThat(decoded.substring(decoded.length() - 1))
          .as("last character of the decoded message")
          .isEqualTo("\u00e9");
      assertThat(message).startsWith(decoded);
      assertThat(decoded).hasSize(ErrorDescriptor.MAX_MESSAGE_BYTES / 2);
    } finally {
      frame.release();
    }
  }

  @Test
  void shouldReadUnknownWireCodeAsInternal() {
    byte[] text = "?".getBytes(StandardCharsets.UTF_8);
    ByteBuf frame =
        FrameDescriptor.allocate(
                UnpooledByteBufAllocator.DEFAULT, MessageType.ERROR, 1, 4 + text.length)
            .writeShort(999)
            .writeShort(text.length)
            .writeBytes(text);
    try {
      ErrorDescriptor.validate(frame);
      assertThat(ErrorDescriptor.code(frame)).isEqualTo(ErrorCode.INTERNAL);
      assertThat(ErrorDescriptor.message(frame)).isEqualTo("?");
    } finally {
      frame.release();
    }
  }

  @Test
  void shouldCarryEveryErrorCodeAcrossTheWire() {
    for (ErrorCode code : ErrorCode.values()) {
      ByteBuf frame = ErrorDescriptor.encode(UnpooledByteBufAllocator.DEFAULT, 1, code, "m");
      try {
        assertThat(frame.getUnsignedShort(FrameDescriptor.BODY_OFFSET)).isEqualTo(code.code());
        assertThat(ErrorDescriptor.code(frame)).isEqualTo(code);
      } finally {
        frame.release();
      }
    }
  }
}
