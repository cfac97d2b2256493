package io.flexlog.client;

import io.flexlog.core.record.RecordFormatDescriptor;
import io.flexlog.core.record.RecordHeader;
import java.util.List;
import java.util.Objects;

/**
 * A record read from FlexLog.
 *
 * <p>Records appended by {@code FlexLogProducer} carry a key, headers and a timestamp (record
 * format 1, docs/protocol.md#record-format); records appended with {@code FlexLog.append} carry
 * none: {@link #key()} is null, {@link #headers()} empty and {@link #timestampMs()} {@link
 * #NO_TIMESTAMP}. Either way {@link #payload()} is the value as the application wrote it
 * (decompressed).
 *
 * @param color the color it was read from
 * @param sn its sequence number in that color
 * @param payload its value; a fresh array the caller owns
 * @param key its key, or null
 * @param headers its headers in the order they were written
 * @param timestampMs milliseconds since the epoch, or {@link #NO_TIMESTAMP}
 */
public record LogRecord(
    String color,
    long sn,
    byte[] payload,
    byte[] key,
    List<RecordHeader> headers,
    long timestampMs) {
  /** The timestamp of a record that has none. */
  public static final long NO_TIMESTAMP = RecordFormatDescriptor.NO_TIMESTAMP;

  public LogRecord {
    Objects.requireNonNull(headers, "headers");
  }

  /** A record without key, headers or timestamp. */
  public LogRecord(String color, long sn, byte[] payload) {
    this(color, sn, payload, null, List.of(), NO_TIMESTAMP);
  }

  /** The value: the same bytes as {@link #payload()}, under Kafka's name. */
  public byte[] value() {
    return payload;
  }
}
