package io.flexlog.client.consumer;

import io.flexlog.client.ClientConfigDef;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.core.config.ConfigException;
import io.flexlog.core.config.ConfigValues;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * A consumer's validated settings: its own keys ({@link ConsumerConfigDef}) and the client keys
 * ({@link ClientConfigDef}) of the connection it opens. Unknown keys and bad values are rejected
 * with a {@link ConfigException} naming the key.
 *
 * <pre>{@code
 * Properties p = new Properties();
 * p.setProperty("bootstrap.servers", "127.0.0.1:7070");
 * p.setProperty("group.id", "billing");
 * p.setProperty("value.deserializer", Deserializers.StringDeserializer.class.getName());
 * ConsumerConfig config = ConsumerConfig.fromProperties(p);
 * }</pre>
 */
public final class ConsumerConfig {
  /** The prefix of a group's internal color: {@code flexlog.group.<group.id>}. */
  public static final String GROUP_COLOR_PREFIX = "flexlog.group.";

  private final FlexLogConfig client;
  private final ConfigValues values;

  private ConsumerConfig(FlexLogConfig client, ConfigValues values) {
    this.client = client;
    this.values = values;
    if (!heartbeatInterval().minus(sessionTimeout()).isNegative()) {
      throw ConfigException.of(
          ConsumerConfigDef.HEARTBEAT_INTERVAL.name(),
          heartbeatInterval().toMillis(),
          "heartbeat.interval.ms ("
              + heartbeatInterval().toMillis()
              + ") must be below session.timeout.ms ("
              + sessionTimeout().toMillis()
              + ")");
    }
  }

  /** Reads properties; see {@link #fromMap}. */
  public static ConsumerConfig fromProperties(Properties properties) {
    Map<String, Object> raw = new HashMap<>();
    for (String key : properties.stringPropertyNames()) {
      raw.put(key, properties.getProperty(key));
    }
    return fromMap(raw);
  }

  /**
   * Splits the settings between the client registry and the consumer registry, and validates both.
   *
   * @throws ConfigException naming the first unknown key or bad value
   */
  public static ConsumerConfig fromMap(Map<String, ?> settings) {
    Properties clientProps = new Properties();
    Map<String, Object> consumerRaw = new HashMap<>();
    for (Map.Entry<String, ?> entry : settings.entrySet()) {
      String key = entry.getKey();
      Object value = entry.getValue() instanceof String s ? s.trim() : entry.getValue();
      if (ClientConfigDef.DEF.lookup(key) != null) {
        clientProps.setProperty(key, String.valueOf(value));
      } else if (ConsumerConfigDef.DEF.lookup(key) != null) {
        consumerRaw.put(key, value);
      } else {
        throw ConfigException.of(
            key,
            value,
            "unknown consumer config key '"
                + key
                + "' (neither a consumer key nor a client key; see docs/configuration.md)");
      }
    }
    ConfigValues values = ConsumerConfigDef.DEF.parse(consumerRaw);
    if (!clientProps.containsKey(FlexLogConfig.SUBSCRIBE_WINDOW_BYTES)) {
      // The consumer's streams use fetch.max.bytes as their window.
      clientProps.setProperty(
          FlexLogConfig.SUBSCRIBE_WINDOW_BYTES,
          Long.toString(values.get(ConsumerConfigDef.FETCH_MAX_BYTES)));
    }
    return new ConsumerConfig(FlexLogConfig.fromProperties(clientProps), values);
  }

  /** The settings of the consumer's connection to the cluster. */
  public FlexLogConfig client() {
    return client;
  }

  /** The group id, or empty for a consumer without a group. */
  public String groupId() {
    return values.get(ConsumerConfigDef.GROUP_ID);
  }

  /** The group's internal color, {@code flexlog.group.<group.id>}. */
  public String groupColor() {
    return GROUP_COLOR_PREFIX + groupId();
  }

  public String clientId() {
    return values.get(ConsumerConfigDef.CLIENT_ID);
  }

  public String autoOffsetReset() {
    return values.get(ConsumerConfigDef.AUTO_OFFSET_RESET);
  }

  public boolean enableAutoCommit() {
    return values.get(ConsumerConfigDef.ENABLE_AUTO_COMMIT);
  }

  public Duration autoCommitInterval() {
    return values.get(ConsumerConfigDef.AUTO_COMMIT_INTERVAL);
  }

  public int maxPollRecords() {
    return values.get(ConsumerConfigDef.MAX_POLL_RECORDS);
  }

  public Duration maxPollInterval() {
    return values.get(ConsumerConfigDef.MAX_POLL_INTERVAL);
  }

  public Duration sessionTimeout() {
    return values.get(ConsumerConfigDef.SESSION_TIMEOUT);
  }

  public Duration heartbeatInterval() {
    return values.get(ConsumerConfigDef.HEARTBEAT_INTERVAL);
  }

  public long fetchMinBytes() {
    return values.get(ConsumerConfigDef.FETCH_MIN_BYTES);
  }

  public Duration fetchMaxWait() {
    return values.get(ConsumerConfigDef.FETCH_MAX_WAIT);
  }

  public long fetchMaxBytes() {
    return values.get(ConsumerConfigDef.FETCH_MAX_BYTES);
  }

  /** Instantiates {@code key.deserializer}. */
  public Deserializer<?> keyDeserializer() {
    return instantiate(
        ConsumerConfigDef.KEY_DESERIALIZER.name(), values.get(ConsumerConfigDef.KEY_DESERIALIZER));
  }

  /** Instantiates {@code value.deserializer}. */
  public Deserializer<?> valueDeserializer() {
    return instantiate(
        ConsumerConfigDef.VALUE_DESERIALIZER.name(),
        values.get(ConsumerConfigDef.VALUE_DESERIALIZER));
  }

  private static Deserializer<?> instantiate(String key, String className) {
    Object instance;
    try {
      Class<?> type = Class.forName(className, true, ConsumerConfig.class.getClassLoader());
      instance = type.getConstructor().newInstance();
    } catch (ReflectiveOperationException | LinkageError e) {
      throw ConfigException.of(
          key, className, key + ": cannot instantiate '" + className + "': " + e);
    }
    if (!(instance instanceof Deserializer<?> deserializer)) {
      throw ConfigException.of(
          key,
          className,
          key + ": '" + className + "' does not implement " + Deserializer.class.getName());
    }
    return deserializer;
  }
}
