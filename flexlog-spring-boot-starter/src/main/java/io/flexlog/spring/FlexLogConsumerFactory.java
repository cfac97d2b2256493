package io.flexlog.spring;

import io.flexlog.client.consumer.ConsumerConfig;
import io.flexlog.client.consumer.Deserializer;
import io.flexlog.client.consumer.FlexLogConsumer;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Creates {@link FlexLogConsumer}s with the application's {@code flexlog.consumer.*} settings. A
 * consumer is used by one thread and closed by whoever created it (it is not thread-safe, like
 * Kafka's), so the starter offers a factory rather than a consumer bean, as Spring for Kafka does.
 * The settings are checked once when the factory is built, so a typo stops the application at its
 * start rather than at the first consumer.
 */
public final class FlexLogConsumerFactory {
  private final Map<String, Object> properties;

  /**
   * @throws io.flexlog.core.config.ConfigException naming the first unknown key or bad value
   */
  public FlexLogConsumerFactory(Map<String, ?> properties) {
    ConsumerConfig.fromMap(properties);
    this.properties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
  }

  /** The settings every consumer gets. */
  public Map<String, Object> properties() {
    return properties;
  }

  /** A consumer with the factory's settings and the deserializers they name. */
  public <K, V> FlexLogConsumer<K, V> createConsumer() {
    return createConsumer(Map.of(), null, null);
  }

  /**
   * A consumer with the factory's settings, {@code overrides} replacing single keys (a {@code
   * group.id}, say).
   */
  public <K, V> FlexLogConsumer<K, V> createConsumer(Map<String, ?> overrides) {
    return createConsumer(overrides, null, null);
  }

  /**
   * @param keys null: the class named by {@code key.deserializer}
   * @param values null: the class named by {@code value.deserializer}
   * @throws io.flexlog.core.config.ConfigException naming an unknown key or bad value of the
   *     overrides
   */
  public <K, V> FlexLogConsumer<K, V> createConsumer(
      Map<String, ?> overrides, Deserializer<K> keys, Deserializer<V> values) {
    Map<String, Object> merged = new LinkedHashMap<>(properties);
    merged.putAll(overrides);
    return new FlexLogConsumer<>(ConsumerConfig.fromMap(merged), keys, values);
  }
}
