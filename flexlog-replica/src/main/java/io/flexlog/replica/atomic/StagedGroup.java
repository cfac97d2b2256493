package io.flexlog.replica.atomic;

import io.flexlog.core.model.Sn;
import io.flexlog.replica.replication.Connection;
import io.flexlog.replica.replication.ReplicaRuntime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.agrona.collections.LongArrayList;

/** One atomic group as this replica of its broker shard knows it. Loop-confined. */
final class StagedGroup {
  static final long NO_ADDRESS = -1L;

  final long groupHigh;
  final long groupLow;
  final int brokerShardId;
  final int memberCount;

  /** Log address of each staged member, {@link #NO_ADDRESS} until staged. */
  final long[] memberAddress;

  /** Token of each member, as staged. */
  final long[] tokenSession;

  final long[] tokenSequence;

  /**
   * SN of each member in its target color once forwarded, {@link Sn#NONE} until then; minus the
   * error code when its forward failed permanently.
   */
  final long[] sns;

  /** Target color and shard of each member, as staged (0 for a group recovered without them). */
  final int[] targetColor;

  final int[] targetShard;

  /** Per member: the request id of its forwarded APPENDs, attempts so far, next send time. */
  final long[] forwardRequestId;

  final int[] forwardAttempts;

  final long[] nextSendNs;

  /** The lowest staging-color SN of this group's entries; {@link Long#MAX_VALUE} if none. */
  long firstStagingSn = Long.MAX_VALUE;

  /** The staging-color SN of the group's DONE or ABORTED entry, 0 until written. */
  long settleSn;

  /** When the last STAGE of this group arrived ({@link ReplicaRuntime#nanoTime()}). */
  long lastStageNs;

  /** When the group became finished (DONE durable) or aborted (ABORTED durable). */
  long settledNs;

  /** Per member: which replicas of its target shard acknowledged it. */
  final int[] ackedMask;

  int staged;

  /** An END entry is written (maybe not durable yet). */
  boolean endWritten;

  /** The END entry is durable: forwarding has started and must finish. */
  boolean ended;

  /** The DONE entry is durable: every member is committed in its target color or failed. */
  boolean done;

  /** An ABORTED entry is written (maybe not durable yet): END is never written afterwards. */
  boolean abortWritten;

  /** The ABORTED entry is durable. */
  boolean aborted;

  int forwarded;

  /** Clients waiting for the GROUP_RESULT: connection and request id. */
  final List<Connection> waiters = new ArrayList<>(1);

  final LongArrayList waiterRequestIds = new LongArrayList(1, Long.MIN_VALUE);

  StagedGroup(long groupHigh, long groupLow, int brokerShardId, int memberCount) {
    this.groupHigh = groupHigh;
    this.groupLow = groupLow;
    this.brokerShardId = brokerShardId;
    this.memberCount = memberCount;
    this.memberAddress = new long[memberCount];
    Arrays.fill(memberAddress, NO_ADDRESS);
    this.tokenSession = new long[memberCount];
    this.tokenSequence = new long[memberCount];
    this.sns = new long[memberCount];
    this.ackedMask = new int[memberCount];
    this.targetColor = new int[memberCount];
    this.targetShard = new int[memberCount];
    this.forwardRequestId = new long[memberCount];
    this.forwardAttempts = new int[memberCount];
    this.nextSendNs = new long[memberCount];
  }

  /** Notes the staging-color SN of one of this group's entries. */
  void noteStagingSn(long sn) {
    if (sn > 0 && sn < firstStagingSn) {
      firstStagingSn = sn;
    }
  }

  /** DONE or ABORTED is durable: the group's staging entries are no longer needed. */
  boolean settled() {
    return done || aborted;
  }

  boolean anyMemberFailed() {
    for (long sn : sns) {
      if (sn < 0) {
        return true;
      }
    }
    return false;
  }

  void stage(int index, long address, long session, long sequence, int colorId, int shardId) {
    memberAddress[index] = address;
    targetColor[index] = colorId;
    targetShard[index] = shardId;
    tokenSession[index] = session;
    tokenSequence[index] = sequence;
    staged++;
  }

  void addWaiter(Connection connection, long requestId) {
    waiters.add(connection);
    waiterRequestIds.addLong(requestId);
  }

  void removeLastWaiter() {
    waiters.remove(waiters.size() - 1);
    waiterRequestIds.removeAt(waiterRequestIds.size() - 1);
  }

  void clearWaiters() {
    waiters.clear();
    waiterRequestIds.clear();
  }

  boolean fullyStaged() {
    return staged == memberCount;
  }

  String describe() {
    return describe(groupHigh, groupLow);
  }

  static String describe(long high, long low) {
    return String.format("%016x%016x", high, low);
  }
}
