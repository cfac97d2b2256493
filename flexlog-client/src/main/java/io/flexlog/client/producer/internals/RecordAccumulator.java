package io.flexlog.client.producer.internals;

import io.flexlog.client.internals.ClientCore;
import io.flexlog.client.internals.KeyHash;
import io.flexlog.core.model.Shard;
import io.netty.buffer.ByteBuf;
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
  private final ClientCore core;
  private final long lingerNs;
  private final int batchSize;
  private final ProducerMetrics metrics;
  private final LongObjectHashMap<ProducerBatch> open = new LongObjectHashMap<>();
  private final IntObjectHashMap<int[]> stickyIndex = new IntObjectHashMap<>();
  private final Set<ProducerBatch> incomplete = ConcurrentHashMap.newKeySet();
  private boolean drainScheduled;

  public RecordAccumulator(ClientCore core, long lingerNs, int batchSize, ProducerMetrics metrics) {
    this.core = core;
    this.lingerNs = lingerNs;
    this.batchSize = batchSize;
    this.metrics = metrics;
  }

  /**
   * Adds a record (its stored bytes) to the open batch of its color and shard.
   *
   * @param shards the color's shards, sorted by id, not empty
   * @param key the serialized key, or null
   */
  public synchronized void append(
      String colorName,
      int colorId,
      List<Shard> shards,
      byte[] key,
      ByteBuf payload,
      RecordCompletion completion) {
    int shardId = pickShard(colorId, shards, key);
    long slot = ((long) colorId << 32) | (shardId & 0xFFFF_FFFFL);
    ProducerBatch batch = open.get(slot);
    if (batch != null && batch.bytes() + payload.readableBytes() > batchSize) {
      open.remove(slot);
      send(batch);
      batch = null;
    }
    if (batch == null) {
      batch = openBatch(colorName, colorId, shardId, slot);
    }
    batch.add(payload, completion);
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

  private ProducerBatch openBatch(String colorName, int colorId, int shardId, long slot) {
    ProducerBatch batch = new ProducerBatch(colorName, colorId, shardId, metrics);
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
    int[] sticky = stickyIndex.get(batch.colorId);
    if (sticky != null) {
      sticky[0]++;
    }
    core.appendBatch(batch.colorName, batch.colorId, batch.shardId, batch.takePayloads(), batch);
  }
}
