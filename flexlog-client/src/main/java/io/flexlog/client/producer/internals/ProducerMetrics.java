package io.flexlog.client.producer.internals;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** Counters behind {@code FlexLogProducer.metrics()}, under Kafka's metric names. Thread-safe. */
public final class ProducerMetrics {
  private final LongAdder sent = new LongAdder();
  private final LongAdder errors = new LongAdder();
  private final LongAdder batches = new LongAdder();
  private final LongAdder batchRecords = new LongAdder();
  private final LongAdder batchBytes = new LongAdder();
  private final LongAdder latencyNs = new LongAdder();
  private final LongAdder completed = new LongAdder();
  private final LongAdder retries = new LongAdder();

  void onBatchSent(int records, int bytes) {
    batches.increment();
    batchRecords.add(records);
    batchBytes.add(bytes);
  }

  void onRecordDone(long sinceBatchCreatedNs, boolean ok) {
    if (ok) {
      sent.increment();
      latencyNs.add(sinceBatchCreatedNs);
      completed.increment();
    } else {
      errors.increment();
    }
  }

  void onRetried(int records) {
    retries.add(records);
  }

  /** The metrics by name; the pool's state is added by the caller. */
  public Map<String, Double> snapshot(BufferPool pool) {
    Map<String, Double> m = new LinkedHashMap<>();
    long b = batches.sum();
    m.put("record-send-total", (double) sent.sum());
    m.put("record-error-total", (double) errors.sum());
    m.put("record-retry-total", (double) retries.sum());
    m.put("batch-send-total", (double) b);
    m.put("records-per-request-avg", b == 0 ? 0.0 : (double) batchRecords.sum() / b);
    m.put("batch-size-avg", b == 0 ? 0.0 : (double) batchBytes.sum() / b);
    long c = completed.sum();
    m.put("record-latency-avg-ms", c == 0 ? 0.0 : latencyNs.sum() / 1e6 / c);
    m.put("buffer-total-bytes", (double) pool.totalBytes());
    m.put("buffer-available-bytes", (double) pool.availableBytes());
    m.put("waiting-threads", (double) pool.waiters());
    return m;
  }
}
