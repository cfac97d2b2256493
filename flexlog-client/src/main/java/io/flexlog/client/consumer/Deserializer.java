package io.flexlog.client.consumer;

/**
 * Turns a record's bytes into a value. Implementations named in {@code key.deserializer} or {@code
 * value.deserializer} need a public no-argument constructor. An exception thrown here reaches the
 * application as a {@link RecordDeserializationException} naming the record's color, shard and SN;
 * the consumer's position stays on that record, so {@code seek(colorShard, sn + 1)} skips it.
 *
 * <p>Called on the thread that calls {@link FlexLogConsumer#poll}.
 */
@FunctionalInterface
public interface Deserializer<T> {
  /**
   * @param color the record's color
   * @param data the record's bytes (the consumer's own copy), or null for an absent key
   */
  T deserialize(String color, byte[] data);
}
