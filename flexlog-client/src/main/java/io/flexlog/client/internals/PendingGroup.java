package io.flexlog.client.internals;

import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.core.error.RecordTooLargeException;
import io.flexlog.core.model.Shard;
import io.flexlog.core.protocol.StageDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One atomic append in flight (docs/architecture.md#atomic-multi-color-append): its members, which
 * replicas of the broker shard acknowledged each, and whether the group was committed.
 * Loop-confined after construction.
 */
final class PendingGroup extends InFlight {
  final long groupHigh;
  final long groupLow;
  final List<String> colorNames;
  final int[] memberColor;
  final ByteBuf[] payloads;
  final CompletableFuture<Map<String, long[]>> future;

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

  PendingGroup(
      long groupHigh,
      long groupLow,
      List<String> colorNames,
      int[] memberColor,
      ByteBuf[] payloads,
      CompletableFuture<Map<String, long[]>> future,
      long deliveryDeadlineNs) {
    super(deliveryDeadlineNs);
    this.groupHigh = groupHigh;
    this.groupLow = groupLow;
    this.colorNames = colorNames;
    this.memberColor = memberColor;
    this.payloads = payloads;
    this.future = future;
  }

  /**
   * A group for {@code records}, validated before anything is staged: colors resolved (refreshing
   * the topology once, off the loop), every record present and within the cluster's limit, the
   * member count within the protocol's. The group's id is this client's next token.
   */
  static PendingGroup validated(
      Map<String, List<byte[]>> records,
      ClientMetadata metadata,
      String brokerColor,
      Tokens tokens,
      long deliveryDeadlineNs,
      CompletableFuture<Map<String, long[]>> future) {
    if (records == null || records.isEmpty()) {
      throw new InvalidArgumentException("an atomic append needs at least one color");
    }
    List<String> names = new ArrayList<>();
    List<byte[]> members = new ArrayList<>();
    List<Integer> memberColor = new ArrayList<>();
    for (Map.Entry<String, List<byte[]>> entry : records.entrySet()) {
      String name = entry.getKey();
      if (name == null || entry.getValue() == null) {
        throw new InvalidArgumentException("an atomic append needs a color name and a list");
      }
      metadata.color(name);
      int colorIndex = names.size();
      names.add(name);
      List<byte[]> payloads = entry.getValue();
      for (int i = 0; i < payloads.size(); i++) {
        checkMember(name, i, payloads.get(i), metadata.maxRecordBytes());
        members.add(payloads.get(i));
        memberColor.add(colorIndex);
      }
    }
    if (members.isEmpty()) {
      throw new InvalidArgumentException("an atomic append needs at least one record");
    }
    if (members.size() > StageDescriptor.MAX_MEMBERS) {
      throw new InvalidArgumentException(
          "an atomic append has at most "
              + StageDescriptor.MAX_MEMBERS
              + " records, got "
              + members.size());
    }
    metadata.color(brokerColor);
    ByteBuf[] payloads = new ByteBuf[members.size()];
    for (int i = 0; i < payloads.length; i++) {
      payloads[i] = Unpooled.wrappedBuffer(members.get(i));
    }
    return new PendingGroup(
        tokens.session(),
        tokens.next(),
        List.copyOf(names),
        memberColor.stream().mapToInt(Integer::intValue).toArray(),
        payloads,
        future,
        deliveryDeadlineNs);
  }

  private static void checkMember(String color, int index, byte[] payload, int maxRecordBytes) {
    if (payload == null) {
      throw new InvalidArgumentException("record " + index + " of color '" + color + "' is null");
    }
    if (payload.length > maxRecordBytes) {
      throw new RecordTooLargeException(
          "record "
              + index
              + " of color '"
              + color
              + "' has "
              + payload.length
              + " bytes, over the cluster's max-record-bytes="
              + maxRecordBytes);
    }
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
