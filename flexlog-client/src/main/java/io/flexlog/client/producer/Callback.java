package io.flexlog.client.producer;

/**
 * Told when a sent record is acknowledged by every replica of its shard, or failed. Runs on the
 * client's I/O thread, so it must be quick and must not block (as in Kafka).
 */
@FunctionalInterface
public interface Callback {
  /**
   * @param metadata where the record is stored; null if it failed
   * @param exception why it failed (a typed {@code FlexLogException}); null if it succeeded
   */
  void onCompletion(RecordMetadata metadata, Exception exception);
}
