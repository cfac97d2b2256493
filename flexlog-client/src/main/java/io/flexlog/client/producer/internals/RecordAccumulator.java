package io.flexlog.client.producer.internals;

import io.flexlog.client.internals.ClientCore;
import io.flexlog.client.internals.KeyHash;
import io.flexlog.core.model.Shard;
import io.flexlog.core.record.RecordHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.LongObjectHashMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Collects sent records into one open {@link ProducerBatch} per (color, shard) and hands a batch to
 * the client when it reaches {@code batch.size}, when {@code linger.ms} has passed since its first
 * record, or on flush and close. With {@code linger.ms=0} a batch is sent by the next task of the
 * client's event loop, so records sent meanwhile still share it.
 *
 * <p>Shard choice: a keyed record goes to the shard of its key ({@link KeyHash}, the same as {@code
 * FlexLog.append} with a key); records without a key stick to one shard per color until that
 * shard's batch is sent, then move to the next shard (Kafka's sticky partitioning).
 *
 * <p>Threading: {@link #append} from any application thread; batches are sent from the caller's
 * thread or the client's event loop; one lock guards the open batches.
 */
public final class RecordAccumulator {
  /**
   * Where batch buffers come from: Netty's arena allocator, which reuses the memory of a batch
   * freed on the client's event loop for the next batch of the sending thread. Netty's default
   * (adaptive) allocator kept allocating and zeroing new chunks under this pattern (measured:
   * docs/architecture.md#producer-batch-buffers).
   */
  private static final ByteBufAllocator BATCH_BUFFERS = PooledByteBufAllocator.DEFAULT;

  private static final int MIN_BATCH_BUFFER_BYTES = 1024;

  private final ClientCore core;
  private final long lingerNs;
  private final int batchSize;
  private final ProducerMetrics metrics;
  private final LongObjectHashMap<ProducerBatch> open = new LongObjectHashMap<>();
  private final IntObjectHashMap<int[]> stickyIndex = new IntObjectHashMap<>();
  private final Set<ProducerBatch> incomplete = ConcurrentHashMap.newKeySet();
  private boolean drainScheduled;
  private int lastBatchBytes;

  public RecordAccumulator(ClientCore core, long lingerNs, int batchSize, ProducerMetrics metrics) {
    this.core = core;
    this.lingerNs = lingerNs;
    this.batchSize = batchSize;
    this.metrics = metrics;
  }

  /**
   * Encodes a record into the open batch of its color and shard.
   *
   * @param shards the color's shards, sorted by id, not empty
   * @param key the serialized key, or null
   * @param length the record's stored length ({@link
   *     io.flexlog.core.record.RecordFormatDescriptor#prefixLength} plus {@code stored})
   * @param stored the value as stored (compressed with {@code codec} or not)
   * @param valueLength the value's length before compression
   * @throws IllegalArgumentException if the record cannot be encoded; nothing was added
   */
  public synchronized void append(
      String colorName,
      int colorId,
      List<Shard> shards,
      byte[] key,
      List<RecordHeader> headers,
      int codec,
      long timestampMs,
      byte[] stored,
      int valueLength,
      int length,
      RecordCompletion completion) {
    int shardId = pickShard(colorId, shards, key);
    long slot = ((long) colorId << 32) | (shardId & 0xFFFF_FFFFL);
    ProducerBatch batch = open.get(slot);
    if (batch != null && batch.bytes() + length > batchSize) {
      open.remove(slot);
      send(batch);
      batch = null;
    }
    if (batch == null) {
      batch = openBatch(colorName, colorId, shardId, slot, length);
    }
    try {
      batch.add(length, codec, timestampMs, key, headers, stored, valueLength, completion);
    } finally {
      if (batch.count() == 0) { // the first record failed to encode: no empty batch stays open
        open.remove(slot);
        batch.whole().release();
        incomplete.remove(batch);
      }
    }
    if (batch.bytes() >= batchSize) {
      open.remove(slot);
      send(batch);
    }
  }

  private int pickShard(int colorId, List<Shard> shards, byte[] key) {
    if (key != null) {
      return shards.get(Math.floorMod(KeyHash.of(key), shards.size())).id();
    }
    int[] sticky = stickyIndex.get(colorId);
    if (sticky == null) {
      sticky = new int[] {(int) (System.nanoTime() & 0xFFFF)};
      stickyIndex.put(colorId, sticky);
    }
    return shards.get(Math.floorMod(sticky[0], shards.size())).id();
  }

  private ProducerBatch openBatch(
      String colorName, int colorId, int shardId, long slot, int firstLength) {
    // Sized like the last batch sent (grown if it fills): a full batch.size for a steady load, no
    // more than the records need for sparse ones, so that memory stays near buffer.memory.
    int expected = Math.min(batchSize, Math.max(lastBatchBytes, MIN_BATCH_BUFFER_BYTES));
    ByteBuf buffer = BATCH_BUFFERS.directBuffer(Math.max(expected, firstLength));
    ProducerBatch batch = new ProducerBatch(colorName, colorId, shardId, buffer, metrics);
    open.put(slot, batch);
    incomplete.add(batch);
    batch.done.whenComplete((v, e) -> incomplete.remove(batch));
    if (lingerNs == 0) {
      if (!drainScheduled) {
        drainScheduled = true;
        core.execute(this::drainAll);
      }
    } else {
      core.schedule(() -> expire(slot, batch), lingerNs);
    }
    return batch;
  }

  private synchronized void expire(long slot, ProducerBatch batch) {
    if (open.get(slot) == batch) {
      open.remove(slot);
      send(batch);
    }
  }

  /** Sends every open batch now (linger 0, flush, close). */
  public synchronized void drainAll() {
    drainScheduled = false;
    List<ProducerBatch> batches = new ArrayList<>(open.values());
    open.clear();
    batches.forEach(this::send);
  }

  /** Completes once every batch open or in flight at the time of the call has completed. */
  public CompletableFuture<Void> whenAllComplete() {
    return CompletableFuture.allOf(
        incomplete.stream().map(b -> b.done).toArray(CompletableFuture[]::new));
  }

  private void send(ProducerBatch batch) {
    lastBatchBytes = batch.bytes();
    int[] sticky = stickyIndex.get(batch.colorId);
    if (sticky != null) {
      sticky[0]++;
    }
    ByteBuf[] payloads = batch.takePayloads();
    core.appendBatch(batch.colorName, batch.colorId, batch.shardId, payloads, batch.whole(), batch);
  }
}
