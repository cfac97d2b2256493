package io.flexlog.client.producer.internals;

import io.flexlog.client.internals.BatchListener;
import io.flexlog.core.error.FlexLogException;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The records of one color for one shard collected until the batch is sent (by size, linger, flush
 * or close), then in flight until every record completed: {@link #done} completes then. Records are
 * added under the accumulator's lock; completions arrive on the client's event loop.
 */
final class ProducerBatch implements BatchListener {
  final String colorName;
  final int colorId;
  final int shardId;
  final long createdNs;
  final CompletableFuture<Void> done = new CompletableFuture<>();
  private final List<ByteBuf> payloads = new ArrayList<>();
  private final List<RecordCompletion> completions = new ArrayList<>();
  private final ProducerMetrics metrics;
  private int bytes;
  private int remaining;

  ProducerBatch(String colorName, int colorId, int shardId, ProducerMetrics metrics) {
    this.colorName = colorName;
    this.colorId = colorId;
    this.shardId = shardId;
    this.metrics = metrics;
    this.createdNs = System.nanoTime();
  }

  void add(ByteBuf payload, RecordCompletion completion) {
    payloads.add(payload);
    completions.add(completion);
    bytes += payload.readableBytes();
  }

  int bytes() {
    return bytes;
  }

  int count() {
    return payloads.size();
  }

  /** Hands the payloads over for sending; from now on only completions arrive. */
  ByteBuf[] takePayloads() {
    remaining = payloads.size();
    metrics.onBatchSent(payloads.size(), bytes);
    ByteBuf[] out = payloads.toArray(new ByteBuf[0]);
    payloads.clear();
    return out;
  }

  @Override
  public void onAppended(int index, long sn) {
    metrics.onRecordDone(System.nanoTime() - createdNs, true);
    completions.get(index).onAppended(sn);
    countDown();
  }

  @Override
  public void onFailed(int index, FlexLogException error) {
    metrics.onRecordDone(System.nanoTime() - createdNs, false);
    completions.get(index).onFailed(error);
    countDown();
  }

  @Override
  public void onResent(int records) {
    metrics.onRetried(records);
  }

  private void countDown() {
    if (--remaining == 0) {
      done.complete(null);
    }
  }
}
