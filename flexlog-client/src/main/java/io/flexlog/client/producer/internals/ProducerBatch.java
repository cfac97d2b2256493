package io.flexlog.client.producer.internals;

import io.flexlog.client.internals.BatchListener;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.record.RecordFormatDescriptor;
import io.flexlog.core.record.RecordHeader;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The records of one color for one shard collected until the batch is sent (by size, linger, flush
 * or close), then in flight until every record completed: {@link #done} completes then. Records are
 * encoded back to back into one buffer of the batch (one allocation per batch, not per record) and
 * leave as views of it. Records are added under the accumulator's lock; completions arrive on the
 * client's event loop.
 */
final class ProducerBatch implements BatchListener {
  final String colorName;
  final int colorId;
  final int shardId;
  final long createdNs;
  final CompletableFuture<Void> done = new CompletableFuture<>();
  private final ByteBuf buffer;
  private final List<RecordCompletion> completions = new ArrayList<>();
  private final ProducerMetrics metrics;
  private int[] lengths = new int[16];
  private int count;
  private int remaining;

  /**
   * @param buffer empty, for the batch's records; owned by the batch until {@link #takePayloads}
   */
  ProducerBatch(
      String colorName, int colorId, int shardId, ByteBuf buffer, ProducerMetrics metrics) {
    this.colorName = colorName;
    this.colorId = colorId;
    this.shardId = shardId;
    this.buffer = buffer;
    this.metrics = metrics;
    this.createdNs = System.nanoTime();
  }

  /**
   * Encodes a record ({@link RecordFormatDescriptor}) at the end of the batch's buffer.
   *
   * @param length the record's stored length: the prefix of its key and headers plus {@code stored}
   * @param stored the value as stored (compressed or not)
   * @param valueLength the value's length before compression
   * @throws IllegalArgumentException from {@link RecordFormatDescriptor#writePrefix}; the batch is
   *     then as before the call
   */
  void add(
      int length,
      int codec,
      long timestampMs,
      byte[] key,
      List<RecordHeader> headers,
      byte[] stored,
      int valueLength,
      RecordCompletion completion) {
    int start = buffer.writerIndex();
    try {
      buffer.ensureWritable(length);
      RecordFormatDescriptor.writePrefix(buffer, codec, timestampMs, key, headers, valueLength);
      buffer.writeBytes(stored);
    } catch (RuntimeException e) {
      buffer.writerIndex(start);
      throw e;
    }
    if (count == lengths.length) {
      lengths = Arrays.copyOf(lengths, count * 2);
    }
    lengths[count++] = buffer.writerIndex() - start;
    completions.add(completion);
  }

  int bytes() {
    return buffer.readableBytes();
  }

  int count() {
    return count;
  }

  /**
   * Hands the records over for sending, as views of the batch's buffer; {@link #whole} is the
   * buffer itself. From now on only completions arrive.
   */
  ByteBuf[] takePayloads() {
    remaining = count;
    metrics.onBatchSent(count, bytes());
    ByteBuf[] out = new ByteBuf[count];
    int offset = buffer.readerIndex();
    for (int i = 0; i < count; i++) {
      out[i] = buffer.retainedSlice(offset, lengths[i]);
      offset += lengths[i];
    }
    return out;
  }

  /** The buffer of the records handed over by {@link #takePayloads}; the caller now owns it. */
  ByteBuf whole() {
    return buffer;
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
