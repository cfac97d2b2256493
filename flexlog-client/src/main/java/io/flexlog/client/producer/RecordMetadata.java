package io.flexlog.client.producer;

/**
 * Where a sent record was stored.
 *
 * @param color its color
 * @param sn its sequence number in the color
 * @param timestampMs its timestamp as stored
 * @param serializedKeySize the key's bytes, -1 without a key
 * @param serializedValueSize the value's bytes before compression
 */
public record RecordMetadata(
    String color, long sn, long timestampMs, int serializedKeySize, int serializedValueSize) {}
