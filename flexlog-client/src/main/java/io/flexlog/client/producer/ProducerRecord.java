package io.flexlog.client.producer;

import io.flexlog.core.record.RecordHeader;
import java.util.List;
import java.util.Objects;

/**
 * A record to send: its color (Kafka's topic), an optional key (records with the same key go to the
 * same shard, in order), a value, headers and an optional timestamp (null: the producer's clock at
 * {@code send}). All are stored with the record and returned by reads and subscriptions.
 *
 * @param color the color's name
 * @param key the key, or null
 * @param value the value, or null (stored as an empty value)
 * @param headers headers, stored in this order
 * @param timestampMs milliseconds since the epoch, or null for the send time
 */
public record ProducerRecord<K, V>(
    String color, K key, V value, List<RecordHeader> headers, Long timestampMs) {
  public ProducerRecord {
    Objects.requireNonNull(color, "color");
    headers = headers == null ? List.of() : List.copyOf(headers);
    if (timestampMs != null && timestampMs < 0) {
      throw new IllegalArgumentException("timestamp " + timestampMs + " is negative");
    }
  }

  public ProducerRecord(String color, K key, V value) {
    this(color, key, value, List.of(), null);
  }

  public ProducerRecord(String color, V value) {
    this(color, null, value, List.of(), null);
  }
}
