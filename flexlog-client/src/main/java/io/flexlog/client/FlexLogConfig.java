package io.flexlog.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * Client configuration. Keys follow Kafka's names where the meaning matches; every key has a
 * default, and {@link #fromProperties} rejects unknown keys and bad values with a message naming
 * the key.
 *
 * <table>
 *   <caption>Keys</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>bootstrap.servers</td><td>127.0.0.1:7070</td><td>comma-separated host:port list of
 *       any FlexLog nodes; the client fetches the topology from the first that answers</td></tr>
 *   <tr><td>request.timeout.ms</td><td>2000</td><td>how long one attempt of an append waits for
 *       the replicas before it is re-sent (same token, so never a second record)</td></tr>
 *   <tr><td>delivery.timeout.ms</td><td>30000</td><td>how long an append may take in all before it
 *       fails with {@code FlexLogTimeoutException}</td></tr>
 *   <tr><td>read.timeout.ms</td><td>5000</td><td>how long a read retries replicas that cannot
 *       decide yet</td></tr>
 *   <tr><td>connect.timeout.ms</td><td>5000</td><td>how long {@code connect} waits for the
 *       topology</td></tr>
 *   <tr><td>subscribe.window.bytes</td><td>1048576</td><td>how many bytes of records a
 *       subscription may hold per shard (received, not yet consumed by the application): the
 *       replicas' credit, so the bound on a subscription's memory and in-flight data</td></tr>
 *   <tr><td>subscribe.liveness.timeout.ms</td><td>3000</td><td>a subscription's stream from a
 *       replica that sends nothing (not even a heartbeat; replicas send one every
 *       {@code subscribe.heartbeat-interval}, 1 s by default) for this long is considered dead:
 *       the client leaves that replica and resumes the shard on another one, without loss or
 *       repeats. Keep it a few times the replicas' heartbeat interval</td></tr>
 * </table>
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
    if (b.bootstrapServers.isEmpty()) {
      throw new IllegalArgumentException(BOOTSTRAP_SERVERS + " must name at least one host:port");
    }
    for (String server : b.bootstrapServers) {
      parseHostPort(server);
    }
    this.bootstrapServers = List.copyOf(b.bootstrapServers);
    this.requestTimeout = positive(REQUEST_TIMEOUT_MS, b.requestTimeout);
    this.deliveryTimeout = positive(DELIVERY_TIMEOUT_MS, b.deliveryTimeout);
    this.readTimeout = positive(READ_TIMEOUT_MS, b.readTimeout);
    try {
      io.flexlog.core.model.Color.validateName(b.atomicBrokerColor);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(ATOMIC_BROKER_COLOR + ": " + e.getMessage(), e);
    }
    this.atomicBrokerColor = b.atomicBrokerColor;
    this.connectTimeout = positive(CONNECT_TIMEOUT_MS, b.connectTimeout);
    if (b.subscribeWindowBytes < MIN_SUBSCRIBE_WINDOW_BYTES) {
      throw new IllegalArgumentException(
          SUBSCRIBE_WINDOW_BYTES
              + " must be at least "
              + MIN_SUBSCRIBE_WINDOW_BYTES
              + ", got "
              + b.subscribeWindowBytes);
    }
    this.subscribeWindowBytes = b.subscribeWindowBytes;
    this.subscribeLivenessTimeout =
        positive(SUBSCRIBE_LIVENESS_TIMEOUT_MS, b.subscribeLivenessTimeout);
    if (deliveryTimeout.compareTo(requestTimeout) < 0) {
      throw new IllegalArgumentException(
          DELIVERY_TIMEOUT_MS + " must be at least " + REQUEST_TIMEOUT_MS);
    }
  }

  private static Duration positive(String key, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(key + " must be > 0, got " + value);
    }
    return value;
  }

  /** Splits {@code host:port}, failing with a message naming the bad value. */
  public static String[] parseHostPort(String server) {
    int colon = server.lastIndexOf(':');
    if (colon <= 0 || colon == server.length() - 1) {
      throw new IllegalArgumentException(BOOTSTRAP_SERVERS + ": '" + server + "' is not host:port");
    }
    try {
      int port = Integer.parseInt(server.substring(colon + 1));
      if (port <= 0 || port > 65535) {
        throw new NumberFormatException();
      }
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          BOOTSTRAP_SERVERS + ": '" + server + "' has an invalid port");
    }
    return new String[] {server.substring(0, colon), server.substring(colon + 1)};
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Reads Kafka-style properties; unknown keys are an error (a typo must not pass silently). */
  public static FlexLogConfig fromProperties(Properties properties) {
    Builder b = builder();
    for (String key : properties.stringPropertyNames()) {
      String value = properties.getProperty(key).trim();
      switch (key) {
        case BOOTSTRAP_SERVERS -> b.bootstrapServers(value);
        case REQUEST_TIMEOUT_MS -> b.requestTimeout(Duration.ofMillis(parseLong(key, value)));
        case DELIVERY_TIMEOUT_MS -> b.deliveryTimeout(Duration.ofMillis(parseLong(key, value)));
        case READ_TIMEOUT_MS -> b.readTimeout(Duration.ofMillis(parseLong(key, value)));
        case CONNECT_TIMEOUT_MS -> b.connectTimeout(Duration.ofMillis(parseLong(key, value)));
        case SUBSCRIBE_WINDOW_BYTES -> b.subscribeWindowBytes(parseBytes(key, value));
        case SUBSCRIBE_LIVENESS_TIMEOUT_MS ->
            b.subscribeLivenessTimeout(Duration.ofMillis(parseLong(key, value)));
        case ATOMIC_BROKER_COLOR -> b.atomicBrokerColor(value);
        default -> throw new IllegalArgumentException("unknown client config key '" + key + "'");
      }
    }
    return b.build();
  }

  private static long parseLong(String key, String value) {
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be a number of milliseconds, got " + value);
    }
  }

  private static long parseBytes(String key, String value) {
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be a number of bytes, got " + value);
    }
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
    private final List<String> bootstrapServers = new ArrayList<>(List.of("127.0.0.1:7070"));
    private Duration requestTimeout = Duration.ofSeconds(2);
    private Duration deliveryTimeout = Duration.ofSeconds(30);
    private Duration readTimeout = Duration.ofSeconds(5);
    private Duration connectTimeout = Duration.ofSeconds(5);
    private long subscribeWindowBytes = 1 << 20;
    private Duration subscribeLivenessTimeout = Duration.ofSeconds(3);
    private String atomicBrokerColor = "global";

    private Builder() {}

    public Builder bootstrapServers(String commaSeparated) {
      bootstrapServers.clear();
      for (String server : commaSeparated.split(",")) {
        if (!server.isBlank()) {
          bootstrapServers.add(server.trim().toLowerCase(Locale.ROOT));
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
