package io.flexlog.core.protocol;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;

/**
 * ERROR body: the request with the frame's request id failed.
 *
 * <pre>
 *  +-------------------------------+-------------------------------+
 *  |        error code (2)         |     message length (2)        |
 *  +-------------------------------+-------------------------------+
 *  |                   message, UTF-8 ...                          |
 * </pre>
 */
public final class ErrorDescriptor {
  public static final int CODE_OFFSET = 0;
  public static final int MESSAGE_LENGTH_OFFSET = 2;
  public static final int MESSAGE_OFFSET = 4;
  public static final int MAX_MESSAGE_BYTES = 0xFFFF;

  private ErrorDescriptor() {}

  public static ByteBuf encode(
      ByteBufAllocator alloc, long requestId, ErrorCode code, String message) {
    byte[] text = message.getBytes(StandardCharsets.UTF_8);
    int length = Math.min(text.length, MAX_MESSAGE_BYTES);
    while (length < text.length && (text[length] & 0xC0) == 0x80) {
      length--; // never split a multi-byte character: back up to its first byte
    }
    ByteBuf buf =
        FrameDescriptor.allocate(alloc, MessageType.ERROR, requestId, MESSAGE_OFFSET + length);
    buf.writeShort(code.code());
    buf.writeShort(length);
    buf.writeBytes(text, 0, length);
    return buf;
  }

  public static void validate(ByteBuf frame) {
    Bodies.requireAtLeast(frame, "ERROR", MESSAGE_OFFSET);
    int length = frame.getUnsignedShort(FrameDescriptor.body(frame) + MESSAGE_LENGTH_OFFSET);
    if (length != FrameDescriptor.bodyLength(frame) - MESSAGE_OFFSET) {
      throw new ProtocolException("ERROR message length " + length + " does not match frame");
    }
  }

  public static ErrorCode code(ByteBuf frame) {
    return ErrorCode.of(frame.getUnsignedShort(FrameDescriptor.body(frame) + CODE_OFFSET));
  }

  public static String message(ByteBuf frame) {
    int length = frame.getUnsignedShort(FrameDescriptor.body(frame) + MESSAGE_LENGTH_OFFSET);
    return frame.toString(
        FrameDescriptor.body(frame) + MESSAGE_OFFSET, length, StandardCharsets.UTF_8);
  }
}
