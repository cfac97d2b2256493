package io.flexlog.client.internals;

import io.flexlog.client.LogRecord;
import io.flexlog.core.protocol.SubscribeRecordsDescriptor;
import java.util.Arrays;

/**
 * The flow control of one {@link ClientSubscription} (docs/architecture.md#subscribe): per shard,
 * the bytes of its records the client holds (buffered for the merge, or released and not yet
 * consumed by the application), and the credit each shard's replica is granted from the part of the
 * shard's window those do not take. Consumption is counted by the {@link SubscriptionQueue} and
 * absorbed here before every decision. It is also the merge's {@link SubscriptionMerger.Sink}:
 * released records go to the queue (in one batch per drain), dropped ones are no longer held.
 *
 * <p>Threading: the client's event loop (the queue's counters are read under its lock).
 */
final class SubscriptionCredits implements SubscriptionMerger.Sink {
  private final long windowBytes;
  private final SubscriptionQueue queue;
  private final SubscriptionContext ctx;

  /** What one drain of the merge released, handed to the queue at once. */
  private final SubscriptionQueue.Batch released = new SubscriptionQueue.Batch();

  /** Per shard (merge index), the bytes held by the client. */
  private long[] held;

  SubscriptionCredits(
      int shards, long windowBytes, SubscriptionQueue queue, SubscriptionContext ctx) {
    this.windowBytes = windowBytes;
    this.queue = queue;
    this.ctx = ctx;
    this.held = new long[shards];
  }

  /** The credit a stream of shard {@code index} opens with: its window less what is held. */
  long openingCredit(int index) {
    queue.absorbConsumed(held);
    return Math.max(0, windowBytes - held[index]);
  }

  /** A stream opened with {@code credit}: a low start lets a consumed record top it up soon. */
  void opened(long credit) {
    if (credit < windowBytes / 2) {
      queue.markCreditLow();
    }
  }

  /** A record of {@code cost} bytes of shard {@code index} entered the merge. */
  void received(int index, long cost) {
    held[index] += cost;
  }

  /**
   * The merge released a record: it stays held until the application consumed it, and goes to the
   * queue with the others of the same drain ({@link #offerReleased}).
   */
  @Override
  public void released(LogRecord record, int shard) {
    released.add(record, shard);
  }

  /**
   * Hands what the merge released since the last call to the queue, at once (one lock, one wakeup).
   */
  void offerReleased() {
    queue.offer(released);
  }

  /** The merge dropped a record it held (a rewind): its bytes are free again. */
  @Override
  public void dropped(LogRecord record, int shard) {
    held[shard] -= SubscribeRecordsDescriptor.recordCost(record.payload().length);
  }

  /** A shard joined the subscription, at the next merge index. */
  void addShard() {
    held = Arrays.copyOf(held, held.length + 1);
  }

  /** Takes in what the application consumed, without granting (the subscription stopped). */
  void absorbConsumed() {
    queue.absorbConsumed(held);
  }

  /** Tops up every stream whose replica could be given at least half a window. */
  void grant(ShardStream[] streams) {
    queue.absorbConsumed(held);
    boolean low = false;
    for (ShardStream stream : streams) {
      if (stream.isStreaming()) {
        long room = windowBytes - held[stream.index] - stream.replicaCredit();
        if (room >= windowBytes / 2) {
          stream.grant(ctx, room);
        }
        low |= stream.replicaCredit() < windowBytes / 2;
      }
    }
    queue.creditLow(low);
  }
}
