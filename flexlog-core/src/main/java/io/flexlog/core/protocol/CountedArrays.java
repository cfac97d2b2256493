package io.flexlog.core.protocol;

import io.netty.buffer.ByteBuf;

/**
 * The array that ends the body of ORDER_REQUEST and TOKEN_SYNC (tokens) and of TOKEN_SYNC_RESPONSE
 * (SNs): an element count at the descriptor's count offset, then exactly that many fixed-size
 * elements up to the end of the body. All fields big-endian.
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |  fields of the descriptor (count offset bytes)                |
 *  +---------------------------------------------------------------+
 *  |                        count n (4)                            |
 *  +---------------------------------------------------------------+
 *  |  n x element: a token { session id (8), sequence (8) }        |
 *  |               or an SN (8)                                    |
 * </pre>
 *
 * <p>Each descriptor keeps its own public accessors and offsets; they delegate here so that the
 * array layout and its validation exist once.
 */
final class CountedArrays {
  static final int COUNT_LENGTH = 4;
  static final int TOKEN_LENGTH = 16;
  static final int SN_LENGTH = 8;

  private CountedArrays() {}

  /** Bytes of a body whose count sits at {@code countOffset} and holds {@code count} elements. */
  static int bodyLength(int countOffset, int count, int elementLength) {
    return countOffset + COUNT_LENGTH + count * elementLength;
  }

  /**
   * Checks that the body reaches past the count and that the count matches the bytes after it.
   *
   * @param message the frame type, for the error
   */
  static void validate(ByteBuf frame, String message, int countOffset, int elementLength) {
    int elementsOffset = countOffset + COUNT_LENGTH;
    Bodies.requireAtLeast(frame, message, elementsOffset);
    Bodies.requireCount(frame, message, countOffset, elementsOffset, elementLength);
  }

  static int count(ByteBuf frame, int countOffset) {
    return frame.getInt(FrameDescriptor.body(frame) + countOffset);
  }

  static void writeToken(ByteBuf buf, long session, long sequence) {
    buf.writeLong(session);
    buf.writeLong(sequence);
  }

  static long tokenSession(ByteBuf frame, int countOffset, int index) {
    return frame.getLong(element(frame, countOffset, index, TOKEN_LENGTH));
  }

  static long tokenSequence(ByteBuf frame, int countOffset, int index) {
    return frame.getLong(element(frame, countOffset, index, TOKEN_LENGTH) + 8);
  }

  static long sn(ByteBuf frame, int countOffset, int index) {
    return frame.getLong(element(frame, countOffset, index, SN_LENGTH));
  }

  private static int element(ByteBuf frame, int countOffset, int index, int elementLength) {
    return FrameDescriptor.body(frame) + countOffset + COUNT_LENGTH + index * elementLength;
  }
}
