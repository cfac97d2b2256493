package io.flexlog.client.internals;

import io.flexlog.core.model.Shard;
import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One atomic append in flight (DESIGN §3.7): its members, which replicas of the broker shard
 * acknowledged each, and whether the group was committed. Loop-confined after construction.
 */
final class PendingGroup {
  final long groupHigh;
  final long groupLow;
  final List<String> colorNames;
  final int[] memberColor;
  final ByteBuf[] payloads;
  final CompletableFuture<Map<String, long[]>> future;
  final long deliveryDeadlineNs;

  long requestId;
  Shard broker;
  int[] colorIds;
  int[] targetShard;
  long[] sequences;
  int[] stagedMask;
  int stagedMembers;

  /**
   * COMMIT_GROUP was sent to at least one replica: from now on some replica may write END, so the
   * group may appear, and only GROUP_RESULT, every replica aborting, or the deadline end it.
   */
  boolean committing;

  /** Replicas of the broker shard that answered GROUP_ABORTED / ATOMIC_OUTCOME_UNKNOWN. */
  int abortedMask;

  int unknownMask;
  long attemptDeadlineNs;
  int attempts;

  PendingGroup(
      long groupHigh,
      long groupLow,
      List<String> colorNames,
      int[] memberColor,
      ByteBuf[] payloads,
      CompletableFuture<Map<String, long[]>> future,
      long deliveryDeadlineNs) {
    this.groupHigh = groupHigh;
    this.groupLow = groupLow;
    this.colorNames = colorNames;
    this.memberColor = memberColor;
    this.payloads = payloads;
    this.future = future;
    this.deliveryDeadlineNs = deliveryDeadlineNs;
  }

  int memberCount() {
    return payloads.length;
  }

  int allReplicasMask() {
    return (1 << broker.replicaNodeIds().size()) - 1;
  }

  /** The request id of the COMMIT_GROUP sent to the broker shard's replica at {@code index}. */
  long commitRequestId(int index) {
    return requestId + 1 + index;
  }

  String describe() {
    return String.format("%016x%016x", groupHigh, groupLow);
  }

  void release() {
    for (ByteBuf payload : payloads) {
      payload.release();
    }
  }
}
