package io.flexlog.client.consumer;

import io.flexlog.client.LogRecord;
import io.flexlog.core.record.RecordHeader;
import java.util.List;

/**
 * One record returned by {@link FlexLogConsumer#poll}.
 *
 * <p>Records appended by {@code FlexLogProducer} carry a key, headers and a timestamp (record
 * format 1, docs/protocol.md#record-format): they come back exactly as produced, the value
 * decompressed. Records appended with {@code FlexLog.append} carry none: {@code key} is null,
 * {@code headers} empty and {@code timestamp} {@link #NO_TIMESTAMP}.
 *
 * @param color the record's color
 * @param shard the shard it was read from, or {@link ColorShard#WHOLE_COLOR} for a whole-color read
 *     (the merged stream does not say which shard a record came from)
 * @param sn its sequence number in the color
 * @param key the key, deserialized with {@code key.deserializer}; null if the record has none
 * @param value the value, deserialized with {@code value.deserializer}
 * @param headers the record's headers in the order they were written
 * @param timestamp milliseconds since the epoch, or {@link #NO_TIMESTAMP}
 * @param serializedKeySize the key's length in bytes, -1 without a key
 * @param serializedValueSize the value's length in bytes (uncompressed)
 */
public record ConsumerRecord<K, V>(
    String color,
    int shard,
    long sn,
    K key,
    V value,
    List<RecordHeader> headers,
    long timestamp,
    int serializedKeySize,
    int serializedValueSize) {
  /** The timestamp of a record that has none. */
  public static final long NO_TIMESTAMP = LogRecord.NO_TIMESTAMP;

  /** Where the record was read from: its color and shard (or the whole color). */
  public ColorShard colorShard() {
    return new ColorShard(color, shard);
  }
}
