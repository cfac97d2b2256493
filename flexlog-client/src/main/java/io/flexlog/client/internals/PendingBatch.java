package io.flexlog.client.internals;

import io.flexlog.core.model.Shard;
import io.netty.buffer.ByteBuf;

/**
 * One APPEND_BATCH in flight: its records (consecutive token sequences from {@link
 * #firstSequence}), per record the SN and which replicas acknowledged it, and its deadlines.
 *
 * <p>Threading: loop-confined.
 */
final class PendingBatch extends InFlight {
  final long firstSequence;
  final String colorName;
  final int colorId;
  final Shard shard;
  final ByteBuf[] payloads;

  /** The payloads back to back in one buffer, or null (see {@link BatchAppends}). */
  ByteBuf whole;

  final long[] sns;
  final int[] ackedMasks;
  final boolean[] done;
  final BatchListener listener;
  int remaining;

  /** The topology was fetched again for this batch already. */
  boolean refreshed;

  PendingBatch(
      long firstSequence,
      String colorName,
      int colorId,
      Shard shard,
      ByteBuf[] payloads,
      ByteBuf whole,
      BatchListener listener,
      long deliveryDeadlineNs) {
    super(deliveryDeadlineNs);
    this.firstSequence = firstSequence;
    this.colorName = colorName;
    this.colorId = colorId;
    this.shard = shard;
    this.payloads = payloads;
    this.whole = whole;
    this.sns = new long[payloads.length];
    this.ackedMasks = new int[payloads.length];
    this.done = new boolean[payloads.length];
    this.listener = listener;
    this.remaining = payloads.length;
  }

  /** Gives up the batch's hold on {@link #whole}: its records are all complete. */
  void releaseWhole() {
    if (whole != null) {
      whole.release();
      whole = null;
    }
  }

  int allReplicasMask() {
    return (1 << shard.replicaNodeIds().size()) - 1;
  }

  /** Whether a record of this batch still waits for the replica of {@code replicaBit}. */
  boolean waitsFor(int replicaBit) {
    for (int i = 0; i < payloads.length; i++) {
      if (!done[i] && (ackedMasks[i] & replicaBit) == 0) {
        return true;
      }
    }
    return false;
  }

  /** The index of a token sequence in this batch, or -1. */
  int indexOf(long sequence) {
    long index = sequence - firstSequence;
    return index >= 0 && index < payloads.length ? (int) index : -1;
  }
}
