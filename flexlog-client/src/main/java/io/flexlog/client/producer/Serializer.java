package io.flexlog.client.producer;

/**
 * Turns a key or value into bytes, as Kafka's {@code Serializer} does. Built-ins in {@link
 * Serializers}. A serializer is called on the thread that calls {@link FlexLogProducer#send}; an
 * exception it throws makes {@code send} throw a {@link SerializationException} naming it.
 *
 * @param <T> the type serialized
 */
@FunctionalInterface
public interface Serializer<T> {
  /**
   * @param color the color the record goes to
   * @param data the key or value; may be null
   * @return its bytes; null for a null key (no key) or a null value (an empty value)
   */
  byte[] serialize(String color, T data);
}
