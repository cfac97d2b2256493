package io.flexlog.client;

import io.flexlog.core.config.ConfigException;
import io.flexlog.core.config.ConfigValues;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Client configuration. Keys follow Kafka's names where the meaning matches; every key has a
 * default. {@link #fromProperties} rejects unknown keys and bad values, and {@link Builder#build}
 * bad values, with a {@link io.flexlog.core.config.ConfigException} naming the key. The keys, their
 * defaults and rules are declared once in {@link ClientConfigDef}; {@code docs/configuration.md}
 * lists them.
 *
 * <pre>{@code
 * Properties p = new Properties();
 * p.setProperty("bootstrap.servers", "10.0.0.1:7070,10.0.0.2:7070");
 * p.setProperty("delivery.timeout.ms", "10000");
 * FlexLog log = FlexLog.connect(FlexLogConfig.fromProperties(p));
 * }</pre>
 */
public final class FlexLogConfig {
  public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
  public static final String REQUEST_TIMEOUT_MS = "request.timeout.ms";
  public static final String DELIVERY_TIMEOUT_MS = "delivery.timeout.ms";
  public static final String READ_TIMEOUT_MS = "read.timeout.ms";
  public static final String CONNECT_TIMEOUT_MS = "connect.timeout.ms";
  public static final String SUBSCRIBE_WINDOW_BYTES = "subscribe.window.bytes";
  public static final String SUBSCRIBE_LIVENESS_TIMEOUT_MS = "subscribe.liveness.timeout.ms";

  /**
   * The broker color of atomic appends ({@code appendAtomically}): members are staged on a shard in
   * its subtree before they reach their colors. Default {@code global}.
   */
  public static final String ATOMIC_BROKER_COLOR = "atomic.broker.color";

  /** The smallest subscription window: room for a few small records per shard. */
  public static final long MIN_SUBSCRIBE_WINDOW_BYTES = 1024;

  private final List<String> bootstrapServers;
  private final Duration requestTimeout;
  private final Duration deliveryTimeout;
  private final Duration readTimeout;
  private final Duration connectTimeout;
  private final long subscribeWindowBytes;
  private final Duration subscribeLivenessTimeout;
  private final String atomicBrokerColor;

  private FlexLogConfig(Builder b) {
    this.bootstrapServers = ClientConfigDef.BOOTSTRAP_SERVERS.validate(List.copyOf(b.servers));
    for (String server : bootstrapServers) {
      String problem = hostPortProblem(server);
      if (problem != null) {
        throw ConfigException.of(BOOTSTRAP_SERVERS, server, BOOTSTRAP_SERVERS + ": " + problem);
      }
    }
    this.requestTimeout = ClientConfigDef.REQUEST_TIMEOUT.validate(b.requestTimeout);
    this.deliveryTimeout = ClientConfigDef.DELIVERY_TIMEOUT.validate(b.deliveryTimeout);
    this.readTimeout = ClientConfigDef.READ_TIMEOUT.validate(b.readTimeout);
    this.atomicBrokerColor = ClientConfigDef.ATOMIC_BROKER_COLOR.validate(b.atomicBrokerColor);
    this.connectTimeout = ClientConfigDef.CONNECT_TIMEOUT.validate(b.connectTimeout);
    this.subscribeWindowBytes = ClientConfigDef.SUBSCRIBE_WINDOW.validate(b.subscribeWindowBytes);
    this.subscribeLivenessTimeout =
        ClientConfigDef.SUBSCRIBE_LIVENESS_TIMEOUT.validate(b.subscribeLivenessTimeout);
    if (deliveryTimeout.compareTo(requestTimeout) < 0) {
      throw ConfigException.of(
          DELIVERY_TIMEOUT_MS,
          deliveryTimeout.toMillis(),
          DELIVERY_TIMEOUT_MS
              + " must be at least "
              + REQUEST_TIMEOUT_MS
              + " ("
              + requestTimeout.toMillis()
              + "), got "
              + deliveryTimeout.toMillis());
    }
  }

  /** Splits {@code host:port}, failing with a message naming the bad value. */
  public static String[] parseHostPort(String server) {
    String problem = hostPortProblem(server);
    if (problem != null) {
      throw new IllegalArgumentException(BOOTSTRAP_SERVERS + ": " + problem);
    }
    int colon = server.lastIndexOf(':');
    return new String[] {server.substring(0, colon), server.substring(colon + 1)};
  }

  /** Null when {@code server} is {@code host:port} with a valid port, else what is wrong. */
  private static String hostPortProblem(String server) {
    int colon = server.lastIndexOf(':');
    if (colon <= 0 || colon == server.length() - 1) {
      return "'" + server + "' is not host:port";
    }
    try {
      int port = Integer.parseInt(server.substring(colon + 1));
      if (port > 0 && port <= 65535) {
        return null;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    return "'" + server + "' has an invalid port";
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Reads Kafka-style properties; unknown keys are an error (a typo must not pass silently).
   *
   * @throws io.flexlog.core.config.ConfigException naming the key at fault as written
   */
  public static FlexLogConfig fromProperties(Properties properties) {
    Map<String, String> raw = new HashMap<>();
    for (String key : properties.stringPropertyNames()) {
      raw.put(key, properties.getProperty(key).trim());
    }
    ConfigValues values = ClientConfigDef.DEF.parse(raw);
    Builder b = builder();
    b.servers(values.get(ClientConfigDef.BOOTSTRAP_SERVERS));
    b.requestTimeout(values.get(ClientConfigDef.REQUEST_TIMEOUT));
    b.deliveryTimeout(values.get(ClientConfigDef.DELIVERY_TIMEOUT));
    b.readTimeout(values.get(ClientConfigDef.READ_TIMEOUT));
    b.connectTimeout(values.get(ClientConfigDef.CONNECT_TIMEOUT));
    b.subscribeWindowBytes(values.get(ClientConfigDef.SUBSCRIBE_WINDOW));
    b.subscribeLivenessTimeout(values.get(ClientConfigDef.SUBSCRIBE_LIVENESS_TIMEOUT));
    b.atomicBrokerColor(values.get(ClientConfigDef.ATOMIC_BROKER_COLOR));
    return b.build();
  }

  public List<String> bootstrapServers() {
    return bootstrapServers;
  }

  public Duration requestTimeout() {
    return requestTimeout;
  }

  public Duration deliveryTimeout() {
    return deliveryTimeout;
  }

  public Duration readTimeout() {
    return readTimeout;
  }

  public Duration connectTimeout() {
    return connectTimeout;
  }

  public long subscribeWindowBytes() {
    return subscribeWindowBytes;
  }

  /** How long a subscription's stream may stay silent before it moves to another replica. */
  public Duration subscribeLivenessTimeout() {
    return subscribeLivenessTimeout;
  }

  public String atomicBrokerColor() {
    return atomicBrokerColor;
  }

  /** Builds a {@link FlexLogConfig}; unset values keep their defaults. */
  public static final class Builder {
    private final List<String> servers = new ArrayList<>();
    private Duration requestTimeout = ClientConfigDef.REQUEST_TIMEOUT.defaultValue();
    private Duration deliveryTimeout = ClientConfigDef.DELIVERY_TIMEOUT.defaultValue();
    private Duration readTimeout = ClientConfigDef.READ_TIMEOUT.defaultValue();
    private Duration connectTimeout = ClientConfigDef.CONNECT_TIMEOUT.defaultValue();
    private long subscribeWindowBytes = ClientConfigDef.SUBSCRIBE_WINDOW.defaultValue();
    private Duration subscribeLivenessTimeout =
        ClientConfigDef.SUBSCRIBE_LIVENESS_TIMEOUT.defaultValue();
    private String atomicBrokerColor = ClientConfigDef.ATOMIC_BROKER_COLOR.defaultValue();

    private Builder() {
      servers(ClientConfigDef.BOOTSTRAP_SERVERS.defaultValue());
    }

    /** Comma-separated {@code host:port} list; blanks between commas are ignored. */
    public Builder bootstrapServers(String commaSeparated) {
      return servers(List.of(commaSeparated.split(",")));
    }

    private Builder servers(List<String> list) {
      servers.clear();
      for (String server : list) {
        if (!server.isBlank()) {
          servers.add(server.trim().toLowerCase(Locale.ROOT));
        }
      }
      return this;
    }

    public Builder requestTimeout(Duration value) {
      requestTimeout = value;
      return this;
    }

    public Builder deliveryTimeout(Duration value) {
      deliveryTimeout = value;
      return this;
    }

    public Builder readTimeout(Duration value) {
      readTimeout = value;
      return this;
    }

    public Builder connectTimeout(Duration value) {
      connectTimeout = value;
      return this;
    }

    public Builder subscribeWindowBytes(long value) {
      subscribeWindowBytes = value;
      return this;
    }

    public Builder subscribeLivenessTimeout(Duration value) {
      subscribeLivenessTimeout = value;
      return this;
    }

    public Builder atomicBrokerColor(String value) {
      atomicBrokerColor = value;
      return this;
    }

    public FlexLogConfig build() {
      return new FlexLogConfig(this);
    }
  }
}
