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

  /**
   * Validates a body that ends with a table of {@code count} fixed-size entries, each holding a
   * payload length at {@code lengthInEntry}, followed by the payloads concatenated: the count fits,
   * no length is negative, and the payloads fill the rest of the body exactly.
   */
  static void requireEntryTable(
      ByteBuf frame,
      String message,
      int countOffset,
      int entriesOffset,
      int entryLength,
      int lengthInEntry) {
    requireAtLeast(frame, message, entriesOffset);
    int body = FrameDescriptor.body(frame);
    int bodyLength = FrameDescriptor.bodyLength(frame);
    int count = frame.getInt(body + countOffset);
    long table = entriesOffset + (long) count * entryLength;
    if (count < 0 || table > bodyLength) {
      throw new ProtocolException(
          message + " count " + count + " does not fit body length " + bodyLength);
    }
    long payloads = 0;
    for (int i = 0; i < count; i++) {
      int length = frame.getInt(body + entriesOffset + i * entryLength + lengthInEntry);
      if (length < 0) {
        throw new ProtocolException(
            message + " record " + i + " has negative payload length " + length);
      }
      payloads += length;
    }
    if (table + payloads != bodyLength) {
      throw new ProtocolException(
          message
              + " payload lengths sum to "
              + payloads
              + " but the body has "
              + (bodyLength - table)
              + " payload bytes");
    }
  }

  /** Checks that a member index lies in {@code [0, count)} and the count is positive. */
  static void requireMember(ByteBuf frame, String message, int index, int count) {
    if (count < 1 || index < 0 || index >= count) {
      throw new ProtocolException(
          message + " member index " + index + " outside a group of " + count + " members");
    }
  }
}
