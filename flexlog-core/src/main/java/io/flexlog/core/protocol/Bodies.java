package io.flexlog.core.protocol;

import io.flexlog.core.error.ProtocolException;
import io.netty.buffer.ByteBuf;

/** Checks shared by the body validators. */
final class Bodies {
  private Bodies() {}

  static void requireLength(ByteBuf frame, String message, int expected) {
    int actual = FrameDescriptor.bodyLength(frame);
    if (actual != expected) {
      throw new ProtocolException(message + " body must be " + expected + " bytes, got " + actual);
    }
  }

  static void requireAtLeast(ByteBuf frame, String message, int minimum) {
    int actual = FrameDescriptor.bodyLength(frame);
    if (actual < minimum) {
      throw new ProtocolException(
          message + " body must be at least " + minimum + " bytes, got " + actual);
    }
  }

  /** Validates a count field against the bytes that follow it. */
  static int requireCount(ByteBuf frame, String message, int countOffset, int fixed, int each) {
    int count = frame.getInt(FrameDescriptor.body(frame) + countOffset);
    long expected = fixed + (long) count * each;
    if (count < 0 || expected != FrameDescriptor.bodyLength(frame)) {
      throw new ProtocolException(
          message
              + " count "
              + count
              + " does not match body length "
              + FrameDescriptor.bodyLength(frame));
    }
    return count;
  }

  /** Checks that a member index lies in {@code [0, count)} and the count is positive. */
  static void requireMember(ByteBuf frame, String message, int index, int count) {
    if (count < 1 || index < 0 || index >= count) {
      throw new ProtocolException(
          message + " member index " + index + " outside a group of " + count + " members");
    }
  }
}
