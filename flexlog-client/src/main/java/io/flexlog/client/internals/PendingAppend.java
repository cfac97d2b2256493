package io.flexlog.client.internals;

import io.flexlog.core.model.Shard;
import io.netty.buffer.ByteBuf;
import java.util.concurrent.CompletableFuture;

/** One append in flight: its token, target shard, the acks so far and its deadlines. */
final class PendingAppend {
  final long sequence;
  final String colorName;
  final int colorId;
  final ByteBuf payload;
  final CompletableFuture<Long> future;
  final long deliveryDeadlineNs;
  Shard shard;
  long attemptDeadlineNs;
  long sn;
  int ackedMask;
  int attempts;

  PendingAppend(
      long sequence,
      String colorName,
      int colorId,
      ByteBuf payload,
      CompletableFuture<Long> future,
      long deliveryDeadlineNs) {
    this.sequence = sequence;
    this.colorName = colorName;
    this.colorId = colorId;
    this.payload = payload;
    this.future = future;
    this.deliveryDeadlineNs = deliveryDeadlineNs;
  }

  boolean allAcked() {
    return ackedMask == (1 << shard.replicaNodeIds().size()) - 1;
  }
}
