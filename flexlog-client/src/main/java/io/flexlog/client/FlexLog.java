package io.flexlog.client;

import io.flexlog.client.internals.ClientCore;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.model.Topology;
import io.netty.buffer.Unpooled;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * A client of a FlexLog cluster: append records to colors and read them back by sequence number.
 *
 * <pre>{@code
 * try (FlexLog log = FlexLog.connect("127.0.0.1:7070")) {
 *   long sn = log.append("global", "hello".getBytes(StandardCharsets.UTF_8));
 *   Optional<LogRecord> record = log.read("global", sn);
 * }
 * }</pre>
 *
 * <p>An append is durable and replicated when it returns: every replica of the chosen shard has
 * committed the record at the returned SN, so any later read on any replica sees it. SNs of a color
 * strictly increase: an append that completed before another began has the smaller SN. Retries
 * after timeouts reuse the append's token, so a retried append never creates a second record.
 *
 * <p>Thread-safe: one instance can serve many threads; it holds one event-loop thread and one
 * connection per node. Errors are unchecked {@link FlexLogException}s: {@code
 * UnknownColorException}, {@code RecordTooLargeException}, {@code StorageFullException}, {@code
 * FlexLogTimeoutException}, {@code TrimmedException}.
 */
public final class FlexLog implements AutoCloseable {
  private final ClientCore core;

  private FlexLog(ClientCore core) {
    this.core = core;
  }

  /** Connects to the cluster behind a comma-separated list of {@code host:port}. */
  public static FlexLog connect(String bootstrapServers) {
    return connect(FlexLogConfig.builder().bootstrapServers(bootstrapServers).build());
  }

  public static FlexLog connect(FlexLogConfig config) {
    return new FlexLog(ClientCore.connect(config));
  }

  /**
   * Appends a record to a color and waits until every replica of the shard has committed it.
   *
   * @return the record's sequence number in the color
   * @throws io.flexlog.core.error.UnknownColorException if the color does not exist
   * @throws io.flexlog.core.error.RecordTooLargeException if over the cluster's max.record.bytes
   * @throws io.flexlog.core.error.FlexLogTimeoutException after delivery.timeout.ms; the outcome is
   *     unknown (the record may still appear, never twice)
   */
  public long append(String color, byte[] payload) {
    return await(appendAsync(color, payload));
  }

  /**
   * Appends without waiting. The array is sent without a copy: do not modify it until the future
   * completes.
   */
  public CompletableFuture<Long> appendAsync(String color, byte[] payload) {
    return core.append(color, Unpooled.wrappedBuffer(payload));
  }

  /**
   * Reads the record of a color at an SN.
   *
   * @return the record, or empty if there is no record at that SN (a hole: SNs are not dense)
   * @throws io.flexlog.core.error.TrimmedException if the SN is at or below the trim point
   * @throws io.flexlog.core.error.FlexLogTimeoutException if no replica could decide within
   *     read.timeout.ms (for example an SN not yet assigned)
   */
  public Optional<LogRecord> read(String color, long sn) {
    return await(readAsync(color, sn));
  }

  public CompletableFuture<Optional<LogRecord>> readAsync(String color, long sn) {
    return core.read(color, sn);
  }

  /** The cluster's topology as last fetched. */
  public Topology topology() {
    return core.topology();
  }

  /** The largest record the cluster accepts, in bytes. */
  public int maxRecordBytes() {
    return core.maxRecordBytes();
  }

  @Override
  public void close() {
    core.close();
  }

  private static <T> T await(CompletableFuture<T> future) {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FlexLogException("interrupted", e);
    } catch (ExecutionException | CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof FlexLogException f) {
        throw f;
      }
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      throw new FlexLogException(String.valueOf(cause), cause);
    }
  }
}
