package io.flexlog.client.producer;

import io.flexlog.client.FlexLogConfig;
import io.flexlog.core.config.ConfigDef;
import io.flexlog.core.config.ConfigException;
import io.flexlog.core.config.ConfigKey;
import io.flexlog.core.config.ConfigKey.Importance;
import io.flexlog.core.config.ConfigValues;
import io.flexlog.core.config.Validator;
import io.flexlog.core.net.Transport;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The producer's properties under Kafka's names and meanings where they match (docs/
 * configuration.md), parsed and validated once by {@link FlexLogProducer}'s constructor. {@code
 * acks} and {@code enable.idempotence} accept only what FlexLog does: every replica acknowledges,
 * and every record is deduplicated by its token.
 */
public final class ProducerConfig {
  public static final String BOOTSTRAP_SERVERS_CONFIG = FlexLogConfig.BOOTSTRAP_SERVERS;
  public static final String CLIENT_ID_CONFIG = "client.id";
  public static final String LINGER_MS_CONFIG = "linger.ms";
  public static final String BATCH_SIZE_CONFIG = "batch.size";
  public static final String BUFFER_MEMORY_CONFIG = "buffer.memory";
  public static final String MAX_BLOCK_MS_CONFIG = "max.block.ms";
  public static final String DELIVERY_TIMEOUT_MS_CONFIG = FlexLogConfig.DELIVERY_TIMEOUT_MS;
  public static final String REQUEST_TIMEOUT_MS_CONFIG = FlexLogConfig.REQUEST_TIMEOUT_MS;
  public static final String RETRY_BACKOFF_MS_CONFIG = "retry.backoff.ms";
  public static final String MAX_REQUEST_SIZE_CONFIG = "max.request.size";
  public static final String COMPRESSION_TYPE_CONFIG = "compression.type";
  public static final String KEY_SERIALIZER_CLASS_CONFIG = "key.serializer";
  public static final String VALUE_SERIALIZER_CLASS_CONFIG = "value.serializer";
  public static final String ACKS_CONFIG = "acks";
  public static final String ENABLE_IDEMPOTENCE_CONFIG = "enable.idempotence";

  /** The registry; docs/configuration.md is generated from it. */
  public static final ConfigDef DEF = ConfigDef.properties("producer config");

  static final ConfigKey<List<String>> BOOTSTRAP_SERVERS =
      DEF.define(
          ConfigKey.list(BOOTSTRAP_SERVERS_CONFIG, List.of("127.0.0.1:7070"))
              .validator(Validator.nonEmpty())
              .importance(Importance.HIGH)
              .doc("Comma-separated host:port list of any FlexLog nodes."));

  static final ConfigKey<String> CLIENT_ID =
      DEF.define(
          ConfigKey.string(CLIENT_ID_CONFIG, "")
              .doc("A name for this producer, used in its thread names and log lines."));

  static final ConfigKey<Duration> LINGER =
      DEF.define(
          ConfigKey.duration(LINGER_MS_CONFIG, Duration.ofMillis(5))
              .validator(Validator.atLeast(Duration.ZERO))
              .importance(Importance.HIGH)
              .doc(
                  "How long a batch waits for more records of its color and shard before it is"
                      + " sent, unless it reaches batch.size first. 0: send as soon as the I/O"
                      + " thread is free (records that arrive meanwhile still share a batch)."));

  static final ConfigKey<Long> BATCH_SIZE =
      DEF.define(
          ConfigKey.dataSize(BATCH_SIZE_CONFIG, 16_384L)
              .validator(Validator.between(1, Transport.MAX_FRAME_BYTES / 2))
              .importance(Importance.HIGH)
              .doc(
                  "Bytes of records (as stored) at which a batch is sent at once; one"
                      + " APPEND_BATCH frame per replica. A record larger than this goes alone."));

  static final ConfigKey<Long> BUFFER_MEMORY =
      DEF.define(
          ConfigKey.dataSize(BUFFER_MEMORY_CONFIG, 32L << 20)
              .validator(Validator.atLeast(1))
              .importance(Importance.HIGH)
              .doc(
                  "Bytes of records sent and not yet acknowledged (or failed). When full, send"
                      + " blocks up to max.block.ms, then throws FlexLogTimeoutException."));

  static final ConfigKey<Duration> MAX_BLOCK =
      DEF.define(
          ConfigKey.duration(MAX_BLOCK_MS_CONFIG, Duration.ofSeconds(10))
              .validator(Validator.atLeast(Duration.ZERO))
              .importance(Importance.HIGH)
              .doc(
                  "The longest send blocks: for the first topology of an unreachable cluster and"
                      + " for room in buffer.memory. Past it send throws FlexLogTimeoutException"
                      + " with what it waited for."));

  static final ConfigKey<Duration> DELIVERY_TIMEOUT =
      DEF.define(
          ConfigKey.duration(DELIVERY_TIMEOUT_MS_CONFIG, Duration.ofSeconds(120))
              .validator(Validator.positiveDuration())
              .doc(
                  "How long a record may take from send to acknowledgement, re-sends included;"
                      + " then it fails with FlexLogTimeoutException (it may still appear, at"
                      + " most once). Records to a color with a retention.ms are re-sent for at"
                      + " most half of it."));

  static final ConfigKey<Duration> REQUEST_TIMEOUT =
      DEF.define(
          ConfigKey.duration(REQUEST_TIMEOUT_MS_CONFIG, Duration.ofSeconds(2))
              .validator(Validator.positiveDuration())
              .doc(
                  "How long one attempt of a batch waits for the replicas, from its write to the"
                      + " socket, before its unacknowledged records are sent again (same tokens:"
                      + " no duplicates; never while it still waits in the connection's buffer)."));

  static final ConfigKey<Duration> RETRY_BACKOFF =
      DEF.define(
          ConfigKey.duration(RETRY_BACKOFF_MS_CONFIG, Duration.ofMillis(100))
              .validator(Validator.positiveDuration())
              .doc(
                  "How long the producer waits between attempts to reach an unreachable cluster"
                      + " for its first topology."));

  static final ConfigKey<Long> MAX_REQUEST_SIZE =
      DEF.define(
          ConfigKey.dataSize(MAX_REQUEST_SIZE_CONFIG, 1L << 20)
              .validator(Validator.atLeast(1))
              .doc(
                  "The largest record (as stored: key, headers and compressed value) send accepts;"
                      + " a larger one fails with RecordTooLargeException, as does one over the"
                      + " cluster's max-record-bytes."));

  static final ConfigKey<String> COMPRESSION_TYPE =
      DEF.define(
          ConfigKey.oneOf(COMPRESSION_TYPE_CONFIG, "none", List.of("none", "lz4", "zstd"))
              .doc(
                  "Compression of each record's value: none, lz4 (needs at.yawk.lz4:lz4-java)"
                      + " or zstd (needs com.github.luben:zstd-jni). Decompressed on read."));

  static final ConfigKey<String> KEY_SERIALIZER =
      DEF.define(
          ConfigKey.string(KEY_SERIALIZER_CLASS_CONFIG, "")
              .doc(
                  "Class name of the key's Serializer (e.g."
                      + " io.flexlog.client.producer.Serializers$String); not needed when the"
                      + " constructor is given one."));

  static final ConfigKey<String> VALUE_SERIALIZER =
      DEF.define(
          ConfigKey.string(VALUE_SERIALIZER_CLASS_CONFIG, "")
              .doc("Class name of the value's Serializer; as key.serializer."));

  static final ConfigKey<String> ACKS =
      DEF.define(
          ConfigKey.string(ACKS_CONFIG, "all")
              .validator(
                  Validator.explain(
                      (String v) ->
                          v.equals("all") || v.equals("-1")
                              ? null
                              : "must be all (or -1): FlexLog acknowledges a record only once"
                                  + " every replica of its shard stored it (write-all)",
                      "all or -1"))
              .doc("Only all (or -1): every replica of the shard stores a record before its ack."));

  static final ConfigKey<Boolean> ENABLE_IDEMPOTENCE =
      DEF.define(
          ConfigKey.bool(ENABLE_IDEMPOTENCE_CONFIG, true)
              .validator(
                  Validator.explain(
                      (Boolean v) ->
                          v
                              ? null
                              : "must be true: every FlexLog record carries a token that replicas"
                                  + " and sequencers deduplicate, so appends are always idempotent",
                      "true"))
              .doc("Only true: FlexLog appends are always idempotent."));

  final List<String> bootstrapServers;
  final String clientId;
  final Duration linger;
  final int batchSize;
  final long bufferMemory;
  final Duration maxBlock;
  final Duration deliveryTimeout;
  final Duration requestTimeout;
  final Duration retryBackoff;
  final long maxRequestSize;
  final String compressionType;
  final String keySerializer;
  final String valueSerializer;

  private ProducerConfig(ConfigValues values) {
    bootstrapServers = values.get(BOOTSTRAP_SERVERS);
    clientId = values.get(CLIENT_ID);
    linger = values.get(LINGER);
    batchSize = values.get(BATCH_SIZE).intValue();
    bufferMemory = values.get(BUFFER_MEMORY);
    maxBlock = values.get(MAX_BLOCK);
    deliveryTimeout = values.get(DELIVERY_TIMEOUT);
    requestTimeout = values.get(REQUEST_TIMEOUT);
    retryBackoff = values.get(RETRY_BACKOFF);
    maxRequestSize = values.get(MAX_REQUEST_SIZE);
    compressionType = values.get(COMPRESSION_TYPE);
    keySerializer = values.get(KEY_SERIALIZER);
    valueSerializer = values.get(VALUE_SERIALIZER);
    if (deliveryTimeout.compareTo(requestTimeout) < 0) {
      throw ConfigException.of(
          DELIVERY_TIMEOUT_MS_CONFIG,
          deliveryTimeout.toMillis(),
          DELIVERY_TIMEOUT_MS_CONFIG + " must be at least " + REQUEST_TIMEOUT_MS_CONFIG);
    }
  }

  /**
   * Parses Kafka-style properties; unknown keys are an error.
   *
   * @throws ConfigException naming the key at fault
   */
  public static ProducerConfig parse(Map<String, ?> properties) {
    Map<String, Object> raw = new HashMap<>();
    properties.forEach(
        (k, v) -> raw.put(k, v instanceof String s ? s.trim() : v == null ? null : v.toString()));
    return new ProducerConfig(DEF.parse(raw));
  }

  /** The settings of the underlying client. */
  FlexLogConfig clientConfig() {
    return FlexLogConfig.builder()
        .bootstrapServers(String.join(",", bootstrapServers))
        .requestTimeout(requestTimeout)
        .deliveryTimeout(deliveryTimeout)
        .connectTimeout(maxBlock.isZero() ? Duration.ofMillis(1) : maxBlock)
        .build();
  }
}
