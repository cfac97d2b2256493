package io.flexlog.client.internals;

import io.flexlog.client.LogRecord;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.ProtocolException;
import io.flexlog.core.record.RecordFields;
import io.flexlog.core.record.RecordFormatDescriptor;
import io.flexlog.core.record.RecordHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.util.List;

/**
 * Writes and reads records in format 1 (docs/protocol.md#record-format) on the client: what the
 * producer appends, what reads and subscriptions return, and the wrapping of a raw payload that
 * would otherwise read as format 1. Thread-safe (stateless).
 */
public final class RecordCodec {
  private RecordCodec() {}

  /**
   * Encodes a record; the value is compressed with {@code codec}.
   *
   * @return a direct buffer the caller owns: a batch frame of direct payloads goes to each replica
   *     as one gathering write, where heap payloads would first be copied into a fresh direct
   *     buffer per replica (docs/architecture.md#producer)
   */
  public static ByteBuf encode(
      ByteBufAllocator alloc,
      int codec,
      long timestampMs,
      byte[] key,
      List<RecordHeader> headers,
      byte[] value) {
    byte[] stored = Compression.compress(codec, value);
    ByteBuf buf =
        alloc.directBuffer(RecordFormatDescriptor.prefixLength(key, headers) + stored.length);
    try {
      RecordFormatDescriptor.writePrefix(buf, codec, timestampMs, key, headers, value.length);
    } catch (RuntimeException e) {
      buf.release();
      throw e;
    }
    buf.writeBytes(stored);
    return buf;
  }

  /**
   * A raw payload as the client stores it: unchanged, unless it starts with the magic of format 1,
   * in which case it is wrapped into a format-1 record without key, headers or timestamp, so that
   * it reads back as written. Takes ownership of {@code payload}.
   */
  static ByteBuf storable(ByteBuf payload) {
    if (!RecordFormatDescriptor.isFormatted(payload)) {
      return payload;
    }
    try {
      byte[] value = ByteBufUtil.getBytes(payload);
      return encode(
          payload.alloc(),
          RecordFormatDescriptor.COMPRESSION_NONE,
          RecordFormatDescriptor.NO_TIMESTAMP,
          null,
          List.of(),
          value);
    } finally {
      payload.release();
    }
  }

  /**
   * The record stored in {@code length} bytes at {@code offset}: format 1 decoded (and
   * decompressed), a raw payload as it is.
   *
   * @throws FlexLogException if a format-1 record is malformed or its codec's library is missing
   */
  static LogRecord read(String color, long sn, ByteBuf buf, int offset, int length) {
    if (!RecordFormatDescriptor.isFormatted(buf, offset, length)) {
      return new LogRecord(color, sn, ByteBufUtil.getBytes(buf, offset, length));
    }
    RecordFields fields;
    try {
      fields = RecordFormatDescriptor.read(buf, offset, length);
    } catch (ProtocolException e) {
      throw new ProtocolException(
          "record " + sn + " of color '" + color + "' is unreadable: " + e.getMessage());
    }
    byte[] stored = ByteBufUtil.getBytes(buf, fields.valueOffset(), fields.storedValueLength());
    byte[] value = Compression.decompress(fields.compression(), stored, fields.valueLength());
    return new LogRecord(color, sn, value, fields.key(), fields.headers(), fields.timestampMs());
  }
}
