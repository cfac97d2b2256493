package io.flexlog.client.internals;

import io.flexlog.core.model.Shard;
import io.netty.buffer.ByteBuf;
import java.util.concurrent.CompletableFuture;

/**
 * One append in flight: its token, target shard, the acks so far and its deadlines. The color is
 * resolved on the loop ({@link #colorId} is -1 until then).
 */
final class PendingAppend extends InFlight {
  final long sequence;
  final String colorName;
  final boolean hasKey;
  final int keyHash;
  final ByteBuf payload;
  final CompletableFuture<Long> future;
  int colorId = -1;
  Shard shard;
  long sn;
  int ackedMask;

  /** The topology was fetched again for this append already. */
  boolean refreshed;

  PendingAppend(
      long sequence,
      String colorName,
      boolean hasKey,
      int keyHash,
      ByteBuf payload,
      CompletableFuture<Long> future,
      long deliveryDeadlineNs) {
    super(deliveryDeadlineNs);
    this.sequence = sequence;
    this.colorName = colorName;
    this.hasKey = hasKey;
    this.keyHash = keyHash;
    this.payload = payload;
    this.future = future;
  }

  boolean allAcked() {
    return ackedMask == (1 << shard.replicaNodeIds().size()) - 1;
  }
}
