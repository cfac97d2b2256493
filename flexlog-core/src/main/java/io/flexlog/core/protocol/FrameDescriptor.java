package io.flexlog.core.protocol;

import io.flexlog.core.error.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Layout of every data-plane frame. All integers are big-endian (network order).
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                 frame length (bytes after this field)         |
 *  +-------------------------------+---------------+---------------+
 *  |        magic 0xF10C           |    version    |     type      |
 *  +-------------------------------+---------------+---------------+
 *  |                          request id                           |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                      body (type-specific) ...                 |
 * </pre>
 *
 * <p>The request id is chosen by whoever sends a request and echoed in its response; one-way
 * messages (order requests and responses, watermarks) carry 0.
 */
public final class FrameDescriptor {
  public static final int LENGTH_OFFSET = 0;
  public static final int MAGIC_OFFSET = 4;
  public static final int VERSION_OFFSET = 6;
  public static final int TYPE_OFFSET = 7;
  public static final int REQUEST_ID_OFFSET = 8;
  public static final int HEADER_LENGTH = 16;

  /** Offset of the body from the start of the frame. */
  public static final int BODY_OFFSET = HEADER_LENGTH;

  public static final short MAGIC = (short) 0xF10C;
  public static final byte VERSION = 1;

  /** Bytes counted by the length field that are not body: magic, version, type, request id. */
  public static final int LENGTH_FIELD_OVERHEAD = HEADER_LENGTH - 4;

  private FrameDescriptor() {}

  /**
   * Allocates a frame with room for {@code bodyLength} bytes and writes its header. The caller
   * writes exactly {@code bodyLength} body bytes (or {@code bodyLength - trailing} when a trailing
   * buffer, such as a payload, follows in a separate write).
   */
  public static ByteBuf allocate(
      ByteBufAllocator alloc, byte type, long requestId, int bodyLength, int allocateBody) {
    ByteBuf buf = alloc.buffer(HEADER_LENGTH + allocateBody);
    buf.writeInt(LENGTH_FIELD_OVERHEAD + bodyLength);
    buf.writeShort(MAGIC);
    buf.writeByte(VERSION);
    buf.writeByte(type);
    buf.writeLong(requestId);
    return buf;
  }

  public static ByteBuf allocate(
      ByteBufAllocator alloc, byte type, long requestId, int bodyLength) {
    return allocate(alloc, type, requestId, bodyLength, bodyLength);
  }

  public static byte type(ByteBuf frame) {
    return frame.getByte(frame.readerIndex() + TYPE_OFFSET);
  }

  public static long requestId(ByteBuf frame) {
    return frame.getLong(frame.readerIndex() + REQUEST_ID_OFFSET);
  }

  /** Index of the first body byte in {@code frame}. */
  public static int body(ByteBuf frame) {
    return frame.readerIndex() + BODY_OFFSET;
  }

  public static int bodyLength(ByteBuf frame) {
    return frame.readableBytes() - HEADER_LENGTH;
  }

  /** Checks magic and version of a complete frame. */
  public static void validateHeader(ByteBuf frame) {
    if (frame.readableBytes() < HEADER_LENGTH) {
      throw new ProtocolException("frame shorter than its header: " + frame.readableBytes());
    }
    short magic = frame.getShort(frame.readerIndex() + MAGIC_OFFSET);
    if (magic != MAGIC) {
      throw new ProtocolException(
          "bad magic 0x" + Integer.toHexString(magic & 0xFFFF) + ", expected 0xf10c");
    }
    byte version = frame.getByte(frame.readerIndex() + VERSION_OFFSET);
    if (version != VERSION) {
      throw new ProtocolException("unsupported protocol version " + version);
    }
  }
}
