package io.flexlog.client;

import io.flexlog.core.config.ConfigDef;
import io.flexlog.core.config.ConfigKey;
import io.flexlog.core.config.ConfigKey.Importance;
import io.flexlog.core.config.Validator;
import io.flexlog.core.model.Color;
import java.time.Duration;
import java.util.List;

/**
 * The registry of the client's properties ({@link FlexLogConfig}): every key with its type,
 * default, rule and doc. Keys follow Kafka's names where the meaning matches, in Kafka's dotted
 * style. {@code docs/configuration.md} is generated from it.
 */
public final class ClientConfigDef {
  /** The registry; {@link FlexLogConfig#fromProperties} parses with it. */
  public static final ConfigDef DEF = ConfigDef.properties("client config");

  public static final ConfigKey<List<String>> BOOTSTRAP_SERVERS =
      DEF.define(
          ConfigKey.list(FlexLogConfig.BOOTSTRAP_SERVERS, List.of("127.0.0.1:7070"))
              .validator(Validator.nonEmpty())
              .importance(Importance.HIGH)
              .doc(
                  "Comma-separated host:port list of any FlexLog nodes; the client fetches the"
                      + " topology from the first that answers. Each entry must be host:port"
                      + " with a port in [1, 65535]."));

  public static final ConfigKey<Duration> REQUEST_TIMEOUT =
      DEF.define(
          ConfigKey.duration(FlexLogConfig.REQUEST_TIMEOUT_MS, Duration.ofSeconds(2))
              .validator(Validator.positiveDuration())
              .importance(Importance.HIGH)
              .doc(
                  "How long one attempt of an append waits for the replicas, from its write to"
                      + " the socket, before it is re-sent (same token, so never a second record;"
                      + " never while it still waits in the connection's buffer); also the retry"
                      + " period of an atomic group's commit."));

  public static final ConfigKey<Duration> DELIVERY_TIMEOUT =
      DEF.define(
          ConfigKey.duration(FlexLogConfig.DELIVERY_TIMEOUT_MS, Duration.ofSeconds(30))
              .validator(Validator.positiveDuration())
              .importance(Importance.HIGH)
              .doc(
                  "How long an append may take in all before it fails with"
                      + " FlexLogTimeoutException. At least request.timeout.ms. Appends to a"
                      + " color with a retention.ms retry for at most half of it."));

  public static final ConfigKey<Duration> READ_TIMEOUT =
      DEF.define(
          ConfigKey.duration(FlexLogConfig.READ_TIMEOUT_MS, Duration.ofSeconds(5))
              .validator(Validator.positiveDuration())
              .doc("How long a read retries replicas that cannot decide yet."));

  public static final ConfigKey<Duration> CONNECT_TIMEOUT =
      DEF.define(
          ConfigKey.duration(FlexLogConfig.CONNECT_TIMEOUT_MS, Duration.ofSeconds(5))
              .validator(Validator.positiveDuration())
              .doc("How long connect waits for the topology."));

  public static final ConfigKey<Long> SUBSCRIBE_WINDOW =
      DEF.define(
          ConfigKey.dataSize(FlexLogConfig.SUBSCRIBE_WINDOW_BYTES, 1L << 20)
              .validator(Validator.atLeast(FlexLogConfig.MIN_SUBSCRIBE_WINDOW_BYTES))
              .doc(
                  "How many bytes of records a subscription may hold per shard (received, not"
                      + " yet consumed by the application): the replicas' credit, so the bound on"
                      + " a subscription's memory and in-flight data."));

  public static final ConfigKey<Duration> SUBSCRIBE_LIVENESS_TIMEOUT =
      DEF.define(
          ConfigKey.duration(FlexLogConfig.SUBSCRIBE_LIVENESS_TIMEOUT_MS, Duration.ofSeconds(3))
              .validator(Validator.positiveDuration())
              .doc(
                  "A subscription's stream from a replica that sends nothing (not even a"
                      + " heartbeat; replicas send one every subscribe-heartbeat-ms of their"
                      + " node settings, 1 s by default) for this long is considered dead: the"
                      + " client leaves that replica and resumes the shard on another one, without"
                      + " loss or repeats. Keep it a few times the replicas' heartbeat interval."));

  public static final ConfigKey<String> ATOMIC_BROKER_COLOR =
      DEF.define(
          ConfigKey.string(FlexLogConfig.ATOMIC_BROKER_COLOR, "global")
              .validator(Validator.explain(ClientConfigDef::colorName, "a color name"))
              .importance(Importance.LOW)
              .doc(
                  "The broker color of atomic appends (appendAtomically): members are staged on"
                      + " a shard in its subtree before they reach their colors."));

  private ClientConfigDef() {}

  private static String colorName(String name) {
    try {
      Color.validateName(name);
      return null;
    } catch (IllegalArgumentException e) {
      return "must be a color name (" + e.getMessage() + ")";
    }
  }
}
