package io.flexlog.client.producer;

import io.flexlog.client.internals.ClientCore;
import io.flexlog.client.internals.Compression;
import io.flexlog.client.producer.internals.BufferPool;
import io.flexlog.client.producer.internals.ClusterConnection;
import io.flexlog.client.producer.internals.ProducerMetrics;
import io.flexlog.client.producer.internals.RecordAccumulator;
import io.flexlog.client.producer.internals.RecordCompletion;
import io.flexlog.core.config.ConfigException;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.FlexLogTimeoutException;
import io.flexlog.core.error.RecordTooLargeException;
import io.flexlog.core.error.UnknownColorException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Shard;
import io.flexlog.core.record.RecordFormatDescriptor;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A Kafka-style producer: {@link #send} collects records into batches per color and shard ({@code
 * linger.ms}, {@code batch.size}) and each batch travels as one APPEND_BATCH frame to every replica
 * of its shard (docs/architecture.md#batched-append). Every record keeps its own token, so re-sends
 * never store a second copy (FlexLog is always idempotent) and a record is acknowledged only once
 * every replica of its shard stored it (always {@code acks=all}).
 *
 * <pre>{@code
 * Properties props = new Properties();
 * props.put("bootstrap.servers", "127.0.0.1:7070");
 * props.put("linger.ms", "5");
 * try (FlexLogProducer<String, String> producer =
 *     new FlexLogProducer<>(props, new Serializers.String(), new Serializers.String())) {
 *   producer.send(new ProducerRecord<>("orders", "customer-7", "paid"),
 *       (metadata, error) -> { if (error != null) error.printStackTrace(); });
 * }
 * }</pre>
 *
 * <p>Blocking: the constructor never blocks; it starts connecting in the background. {@code send}
 * blocks up to {@code max.block.ms} for the cluster's first topology and for room in {@code
 * buffer.memory}, then throws {@link FlexLogTimeoutException} saying which. Every other failure
 * (unknown color, a record too large, a replica's refusal, a delivery timeout) completes the
 * returned future exceptionally with a typed {@link FlexLogException} and is passed to the
 * callback.
 *
 * <p>Order: records with the same key go to the same shard and get increasing SNs in the order they
 * were sent, unless one of them fails.
 *
 * <p>Threading: thread-safe; callbacks run on the client's I/O thread and must not block.
 */
public final class FlexLogProducer<K, V> implements AutoCloseable {
  private static final byte[] EMPTY = new byte[0];

  private final ProducerConfig config;
  private final Serializer<K> keySerializer;
  private final Serializer<V> valueSerializer;
  private final int codec;
  private final ClusterConnection connection;
  private final BufferPool pool;
  private final ProducerMetrics metrics = new ProducerMetrics();
  private volatile RecordAccumulator accumulator;
  private volatile boolean closed;

  /** Set once close's wait is over: what still fails then fails because of the close. */
  private volatile Duration closing;

  /** Serializers from {@code key.serializer} and {@code value.serializer}. */
  public FlexLogProducer(Properties properties) {
    this(properties, null, null);
  }

  /**
   * @param keySerializer null: the class named by {@code key.serializer}
   * @param valueSerializer null: the class named by {@code value.serializer}
   * @throws ConfigException naming the first property at fault
   */
  public FlexLogProducer(
      Properties properties, Serializer<K> keySerializer, Serializer<V> valueSerializer) {
    this(toMap(properties), keySerializer, valueSerializer);
  }

  public FlexLogProducer(
      Map<String, ?> properties, Serializer<K> keySerializer, Serializer<V> valueSerializer) {
    this.config = ProducerConfig.parse(properties);
    this.keySerializer =
        keySerializer != null
            ? keySerializer
            : instantiate(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, config.keySerializer);
    this.valueSerializer =
        valueSerializer != null
            ? valueSerializer
            : instantiate(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, config.valueSerializer);
    this.codec = Compression.codec(config.compressionType);
    this.pool = new BufferPool(config.bufferMemory);
    this.connection =
        new ClusterConnection(config.clientConfig(), config.retryBackoff, config.clientId);
  }

  /** {@link #send(ProducerRecord, Callback)} without a callback. */
  public Future<RecordMetadata> send(ProducerRecord<K, V> record) {
    return send(record, null);
  }

  /**
   * Sends a record asynchronously.
   *
   * @return completes with where the record is stored once every replica of its shard stored it
   * @throws IllegalStateException after {@link #close}
   * @throws SerializationException if a serializer throws
   * @throws FlexLogTimeoutException if the cluster gave no topology, or {@code buffer.memory} had
   *     no room, within {@code max.block.ms}
   */
  public Future<RecordMetadata> send(ProducerRecord<K, V> record, Callback callback) {
    if (closed) {
      throw new IllegalStateException("cannot send after the producer is closed");
    }
    long deadlineNs = System.nanoTime() + config.maxBlock.toNanos();
    byte[] key = serialize(keySerializer, "key", record.color(), record.key());
    byte[] value = serialize(valueSerializer, "value", record.color(), record.value());
    long timestampMs =
        record.timestampMs() != null ? record.timestampMs() : System.currentTimeMillis();
    CompletableFuture<RecordMetadata> future = new CompletableFuture<>();
    ClientCore core = awaitCore(deadlineNs);
    Completion completion =
        new Completion(record.color(), timestampMs, key, value, future, callback);
    byte[] valueBytes = value == null ? EMPTY : value;
    byte[] stored = Compression.compress(codec, valueBytes);
    Color color;
    List<Shard> shards;
    int length;
    try {
      length = RecordFormatDescriptor.prefixLength(key, record.headers()) + stored.length;
      checkSize(core, record.color(), length);
      color = resolve(core, record.color());
      shards = core.shardsOf(color.id());
      if (shards.isEmpty()) {
        throw new FlexLogException("color '" + record.color() + "' has no shard to append to");
      }
    } catch (FlexLogException refused) {
      completion.fail(refused);
      return future;
    }
    completion.storedBytes = length;
    reserve(length, deadlineNs);
    try {
      accumulator(core)
          .append(
              record.color(),
              color.id(),
              shards,
              key,
              record.headers(),
              codec,
              timestampMs,
              stored,
              valueBytes.length,
              length,
              completion);
    } catch (RuntimeException e) {
      pool.release(length);
      throw e;
    }
    return future;
  }

  private void checkSize(ClientCore core, String color, int bytes) {
    long limit = Math.min(config.maxRequestSize, core.maxRecordBytes());
    if (bytes <= limit) {
      return;
    }
    throw new RecordTooLargeException(
        "record to '"
            + color
            + "' is "
            + bytes
            + " bytes as stored (key, headers and value), over "
            + (limit == config.maxRequestSize
                ? "max.request.size=" + config.maxRequestSize
                : "the cluster's max-record-bytes=" + core.maxRecordBytes()));
  }

  /** The color; an unknown one after one topology fetch is an {@link UnknownColorException}. */
  private static Color resolve(ClientCore core, String name) {
    Optional<Color> known = core.topology().color(name);
    return known.isPresent() ? known.get() : core.color(name);
  }

  private ClientCore awaitCore(long deadlineNs) {
    try {
      return connection.await(deadlineNs, config.maxBlock.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FlexLogException("interrupted while waiting for the cluster's topology", e);
    }
  }

  private void reserve(int bytes, long deadlineNs) {
    try {
      pool.reserve(bytes, deadlineNs, config.maxBlock.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FlexLogException("interrupted while waiting for room in buffer.memory", e);
    }
  }

  private RecordAccumulator accumulator(ClientCore core) {
    RecordAccumulator a = accumulator;
    if (a == null) {
      synchronized (this) {
        if (accumulator == null) {
          accumulator =
              new RecordAccumulator(core, config.linger.toNanos(), config.batchSize, metrics);
        }
        a = accumulator;
      }
    }
    return a;
  }

  /**
   * Sends every collected record now and waits until every record sent before this call has
   * completed (acknowledged or failed; each fails at the latest after {@code delivery.timeout.ms}).
   */
  public void flush() {
    RecordAccumulator a = accumulator;
    if (a == null) {
      return;
    }
    a.drainAll();
    a.whenAllComplete().join();
  }

  /** {@link #close(Duration)} with no limit but {@code delivery.timeout.ms}. */
  @Override
  public void close() {
    close(config.deliveryTimeout.plusSeconds(1));
  }

  /**
   * Refuses further sends, sends what is collected and waits up to {@code timeout} for every record
   * in flight. Records still in flight after that fail with a {@link FlexLogException} saying the
   * producer was closed and that they may still appear, at most once each; none is dropped
   * silently.
   */
  public void close(Duration timeout) {
    closed = true;
    RecordAccumulator a = accumulator;
    if (a != null) {
      a.drainAll();
      try {
        a.whenAllComplete().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      } catch (TimeoutException | ExecutionException e) {
        // what is still in flight fails below, when the client closes
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    closing = timeout;
    connection.close();
  }

  /** Kafka-named counters: records sent and failed, batches, buffer use. */
  public Map<String, Double> metrics() {
    return metrics.snapshot(pool);
  }

  private static <T> byte[] serialize(Serializer<T> s, String what, String color, T data) {
    try {
      return s.serialize(color, data);
    } catch (RuntimeException e) {
      throw new SerializationException(
          "the "
              + what
              + " serializer "
              + s.getClass().getName()
              + " failed for a record to '"
              + color
              + "': "
              + e,
          e);
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> Serializer<T> instantiate(String key, String className) {
    if (className.isEmpty()) {
      throw ConfigException.of(
          key, className, key + " is required when no serializer is passed to the constructor");
    }
    try {
      Object instance = Class.forName(className).getDeclaredConstructor().newInstance();
      if (!(instance instanceof Serializer<?>)) {
        throw ConfigException.of(
            key, className, key + "=" + className + " does not implement " + Serializer.class);
      }
      return (Serializer<T>) instance;
    } catch (ReflectiveOperationException e) {
      throw ConfigException.of(
          key, className, key + "=" + className + " cannot be instantiated: " + e);
    }
  }

  private static Map<String, Object> toMap(Properties properties) {
    Map<String, Object> map = new java.util.HashMap<>();
    properties.forEach((k, v) -> map.put(String.valueOf(k), v));
    return map;
  }

  /** One record's completion: the future, the callback and the buffer's share. */
  private final class Completion implements RecordCompletion {
    final String color;
    final long timestampMs;
    final int keySize;
    final int valueSize;
    final CompletableFuture<RecordMetadata> future;
    final Callback callback;
    int storedBytes;

    Completion(
        String color,
        long timestampMs,
        byte[] key,
        byte[] value,
        CompletableFuture<RecordMetadata> future,
        Callback callback) {
      this.color = color;
      this.timestampMs = timestampMs;
      this.keySize = key == null ? -1 : key.length;
      this.valueSize = value == null ? 0 : value.length;
      this.future = future;
      this.callback = callback;
    }

    @Override
    public void onAppended(long sn) {
      pool.release(storedBytes);
      RecordMetadata metadata = new RecordMetadata(color, sn, timestampMs, keySize, valueSize);
      future.complete(metadata);
      if (callback != null) {
        callback.onCompletion(metadata, null);
      }
    }

    @Override
    public void onFailed(FlexLogException error) {
      pool.release(storedBytes);
      fail(closingError(error));
    }

    void fail(FlexLogException error) {
      future.completeExceptionally(error);
      if (callback != null) {
        callback.onCompletion(null, error);
      }
    }

    private FlexLogException closingError(FlexLogException error) {
      Duration c = closing;
      if (c == null || error instanceof FlexLogTimeoutException) {
        return error;
      }
      return new FlexLogException(
          "the producer was closed with this record to '"
              + color
              + "' still in flight after close's timeout of "
              + c.toMillis()
              + " ms; it may still appear, at most once",
          error);
    }
  }
}
