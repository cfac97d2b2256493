package io.flexlog.client.consumer;

/**
 * One record returned by {@link FlexLogConsumer#poll}.
 *
 * <p>Keys, headers and timestamps: FlexLog records carry only a payload today (an append key picks
 * the shard but is not stored), so {@code key} is always null, {@code headers} empty and {@code
 * timestamp} {@link #NO_TIMESTAMP}. The value is the deserialized payload.
 *
 * @param color the record's color
 * @param shard the shard it was read from, or {@link ColorShard#WHOLE_COLOR} for a whole-color read
 *     (the merged stream does not say which shard a record came from)
 * @param sn its sequence number in the color
 * @param key the deserialized key; null (see above)
 * @param value the deserialized payload
 * @param headers record headers; empty (see above)
 * @param timestamp milliseconds since the epoch; {@link #NO_TIMESTAMP} (see above)
 * @param serializedValueSize the payload's length in bytes
 */
public record ConsumerRecord<K, V>(
    String color,
    int shard,
    long sn,
    K key,
    V value,
    java.util.List<Header> headers,
    long timestamp,
    int serializedValueSize) {
  public static final long NO_TIMESTAMP = -1;

  /** A record header: a name and its bytes. */
  public record Header(String key, byte[] value) {}

  /** Where the record was read from: its color and shard (or the whole color). */
  public ColorShard colorShard() {
    return new ColorShard(color, shard);
  }
}
