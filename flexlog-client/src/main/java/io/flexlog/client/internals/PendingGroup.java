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
  boolean committing;
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

  void release() {
    for (ByteBuf payload : payloads) {
      payload.release();
    }
  }
}
