package io.flexlog.core.record;

import io.flexlog.core.error.ProtocolException;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Layout of a record with key, headers and timestamp (record format 1), as the payload the log
 * stores and the replicas treat as opaque bytes. Clients write it (the producer always, {@code
 * FlexLog.append} only when a raw payload would otherwise look like one) and decode it on read and
 * subscription (docs/protocol.md#record-format). Big-endian, like the wire.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                      magic 0xF10C5243                         |
 *  +---------------+---------------+-------------------------------+
 *  | version (1)   | attributes    |       header count h          |
 *  +---------------+---------------+-------------------------------+
 *  |                 timestamp, ms since the epoch                 |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |               key length k (-1: no key)                       |
 *  +---------------------------------------------------------------+
 *  |                         key (k bytes)                         |
 *  +---------------------------------------------------------------+
 *  | h x { name length (2), name UTF-8, value length (4, -1: null), |
 *  |       value }                                                 |
 *  +---------------------------------------------------------------+
 *  |               value length, uncompressed (4)                  |
 *  +---------------------------------------------------------------+
 *  |      value: the rest of the payload, compressed as the        |
 *  |      attributes say                                           |
 * </pre>
 *
 * <p>Attributes bits 0-2: the value's compression ({@link #COMPRESSION_NONE}, {@link
 * #COMPRESSION_LZ4}, {@link #COMPRESSION_ZSTD}); the other bits are zero. A payload is read as a
 * format-1 record if and only if it starts with the magic; a raw payload that starts with the magic
 * is wrapped into a format-1 record by the client that appends it, so every payload is read back as
 * written. Records written before format 1 existed were raw payloads and read the same, except one
 * that begins with these four magic bytes (docs/protocol.md#record-format).
 */
public final class RecordFormatDescriptor {
  public static final int MAGIC = 0xF10C5243;
  public static final byte VERSION = 1;

  public static final int MAGIC_OFFSET = 0;
  public static final int VERSION_OFFSET = 4;
  public static final int ATTRIBUTES_OFFSET = 5;
  public static final int HEADER_COUNT_OFFSET = 6;
  public static final int TIMESTAMP_OFFSET = 8;
  public static final int KEY_LENGTH_OFFSET = 16;
  public static final int KEY_OFFSET = 20;

  /** Bytes before the key. */
  public static final int FIXED_LENGTH = KEY_OFFSET;

  /** The length field in front of the value. */
  public static final int VALUE_LENGTH_FIELD = 4;

  public static final long NO_TIMESTAMP = -1L;
  public static final int COMPRESSION_NONE = 0;
  public static final int COMPRESSION_LZ4 = 1;
  public static final int COMPRESSION_ZSTD = 2;
  public static final int COMPRESSION_MASK = 0x07;

  /** Most headers of one record. */
  public static final int MAX_HEADERS = 0xFFFF;

  private RecordFormatDescriptor() {}

  /** True if the readable bytes of {@code payload} start with the magic of format 1. */
  public static boolean isFormatted(ByteBuf payload) {
    return payload.readableBytes() >= 4 && payload.getInt(payload.readerIndex()) == MAGIC;
  }

  /** True if {@code length} bytes at {@code offset} of {@code buf} start with the magic. */
  public static boolean isFormatted(ByteBuf buf, int offset, int length) {
    return length >= 4 && buf.getInt(offset) == MAGIC;
  }

  /**
   * Bytes of a record's fields before its stored value, the value length field included.
   *
   * @throws IllegalArgumentException for too many headers or a header name over 65535 bytes, as
   *     {@link #writePrefix} would
   */
  public static int prefixLength(byte[] key, List<RecordHeader> headers) {
    checkHeaderCount(headers.size());
    int length = FIXED_LENGTH + (key == null ? 0 : key.length) + VALUE_LENGTH_FIELD;
    for (int i = 0; i < headers.size(); i++) { // no iterator per record
      RecordHeader header = headers.get(i);
      int name = header.key().getBytes(StandardCharsets.UTF_8).length;
      checkHeaderName(name);
      length += 2 + name + 4;
      length += header.value() == null ? 0 : header.value().length;
    }
    return length;
  }

  private static void checkHeaderCount(int count) {
    if (count > MAX_HEADERS) {
      throw new IllegalArgumentException(
          count + " headers exceed the most a record holds, " + MAX_HEADERS);
    }
  }

  private static void checkHeaderName(int bytes) {
    if (bytes > 0xFFFF) {
      throw new IllegalArgumentException("header name of " + bytes + " bytes exceeds 65535 bytes");
    }
  }

  /**
   * Writes everything up to the stored value; the caller writes the stored value right after.
   *
   * @throws IllegalArgumentException for too many headers or a header name over 65535 bytes
   */
  public static void writePrefix(
      ByteBuf buf,
      int compression,
      long timestampMs,
      byte[] key,
      List<RecordHeader> headers,
      int valueLength) {
    checkHeaderCount(headers.size());
    buf.writeInt(MAGIC);
    buf.writeByte(VERSION);
    buf.writeByte(compression & COMPRESSION_MASK);
    buf.writeShort(headers.size());
    buf.writeLong(timestampMs);
    if (key == null) {
      buf.writeInt(-1);
    } else {
      buf.writeInt(key.length);
      buf.writeBytes(key);
    }
    for (int i = 0; i < headers.size(); i++) {
      RecordHeader header = headers.get(i);
      byte[] name = header.key().getBytes(StandardCharsets.UTF_8);
      checkHeaderName(name.length);
      buf.writeShort(name.length);
      buf.writeBytes(name);
      byte[] value = header.value();
      buf.writeInt(value == null ? -1 : value.length);
      if (value != null) {
        buf.writeBytes(value);
      }
    }
    buf.writeInt(valueLength);
  }

  /**
   * Reads the fields of the format-1 record in {@code length} bytes at {@code offset}.
   *
   * @throws ProtocolException naming the first inconsistency (a truncated field, an unknown version
   *     or compression, a length outside the record)
   */
  public static RecordFields read(ByteBuf buf, int offset, int length) {
    int end = offset + length;
    if (length < FIXED_LENGTH + VALUE_LENGTH_FIELD) {
      throw malformed("record of " + length + " bytes");
    }
    if (buf.getInt(offset + MAGIC_OFFSET) != MAGIC) {
      throw malformed("bad magic");
    }
    byte version = buf.getByte(offset + VERSION_OFFSET);
    if (version != VERSION) {
      throw malformed("unknown record format version " + version);
    }
    int attributes = buf.getUnsignedByte(offset + ATTRIBUTES_OFFSET);
    int compression = attributes & COMPRESSION_MASK;
    if (attributes != compression || compression > COMPRESSION_ZSTD) {
      throw malformed("unknown record attributes " + attributes);
    }
    int headerCount = buf.getUnsignedShort(offset + HEADER_COUNT_OFFSET);
    long timestampMs = buf.getLong(offset + TIMESTAMP_OFFSET);
    int keyLength = buf.getInt(offset + KEY_LENGTH_OFFSET);
    int at = offset + KEY_OFFSET;
    byte[] key = null;
    if (keyLength != -1) {
      if (keyLength < 0 || keyLength > end - at) {
        throw malformed("key length " + keyLength);
      }
      key = new byte[keyLength];
      buf.getBytes(at, key);
      at += keyLength;
    }
    List<RecordHeader> headers = headerCount == 0 ? List.of() : new ArrayList<>(headerCount);
    for (int i = 0; i < headerCount; i++) {
      if (end - at < 2) {
        throw malformed("header " + i + " truncated");
      }
      int nameLength = buf.getUnsignedShort(at);
      at += 2;
      if (nameLength + 4 > end - at) {
        throw malformed("header " + i + " name length " + nameLength);
      }
      String name = buf.toString(at, nameLength, StandardCharsets.UTF_8);
      at += nameLength;
      int valueLength = buf.getInt(at);
      at += 4;
      byte[] value = null;
      if (valueLength != -1) {
        if (valueLength < 0 || valueLength > end - at) {
          throw malformed("header " + i + " value length");
        }
        value = new byte[valueLength];
        buf.getBytes(at, value);
        at += valueLength;
      }
      headers.add(new RecordHeader(name, value));
    }
    if (end - at < VALUE_LENGTH_FIELD) {
      throw malformed("value length truncated");
    }
    int valueLength = buf.getInt(at);
    at += VALUE_LENGTH_FIELD;
    int stored = end - at;
    if (valueLength < 0 || (compression == COMPRESSION_NONE && valueLength != stored)) {
      throw malformed("value length " + valueLength + " with " + stored + " stored bytes");
    }
    return new RecordFields(key, headers, timestampMs, compression, valueLength, at, stored);
  }

  /** The error of a malformed record; its message is built only when a check fails. */
  private static ProtocolException malformed(String problem) {
    return new ProtocolException("malformed record (format 1): " + problem);
  }
}
