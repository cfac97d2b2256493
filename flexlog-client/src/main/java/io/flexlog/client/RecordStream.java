package io.flexlog.client;

import java.time.Duration;

/**
 * A subscription read by the application: {@link #poll} or iteration return the color's records one
 * by one, in SN order, as they become available (see {@link FlexLog#subscribe(String, long)}).
 *
 * <pre>{@code
 * try (RecordStream stream = log.subscribe("orders", 0)) {
 *   for (LogRecord record : stream) {        // blocks for the next record; ends when closed
 *     process(record);
 *   }
 * }
 * }</pre>
 *
 * <p>Flow control: the replicas send only as many bytes as the client may buffer per shard ({@code
 * subscribe.window.bytes}); a record counts as consumed when {@code poll} or the iterator returns
 * it.
 *
 * <p>Threading: meant for one reading thread; {@link #close} may be called from any thread and
 * wakes a blocked reader.
 */
public interface RecordStream extends Subscription, Iterable<LogRecord> {
  /**
   * Waits up to {@code timeout} for the next record.
   *
   * @return the record, or null if none arrived in time or the stream was closed meanwhile
   * @throws io.flexlog.core.error.FlexLogException if the subscription failed for good (for example
   *     {@code UnknownColorException} after the color was removed); records released before the
   *     failure are returned first
   * @throws IllegalStateException if the stream was closed before the call
   */
  LogRecord poll(Duration timeout);

  /**
   * Hands up to {@code max} records that are available now to {@code sink}, in order, without
   * waiting: for a reader that takes records in batches.
   *
   * @return how many were handed over
   * @throws io.flexlog.core.error.FlexLogException as {@link #poll}, once no record precedes the
   *     failure
   */
  default int drainTo(java.util.function.Consumer<LogRecord> sink, int max) {
    int n = 0;
    LogRecord record;
    while (n < max && (record = poll(Duration.ZERO)) != null) {
      sink.accept(record);
      n++;
    }
    return n;
  }
}
