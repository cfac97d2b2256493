package io.flexlog.replica.atomic;

import io.flexlog.core.model.Sn;
import io.netty.channel.Channel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

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

  /** SN of each member in its target color once forwarded, {@link Sn#NONE} until then. */
  final long[] sns;

  /** Per member: which replicas of its target shard acknowledged it. */
  final int[] ackedMask;

  int staged;

  /** An END entry is written (maybe not durable yet). */
  boolean endWritten;

  /** The END entry is durable: forwarding has started and must finish. */
  boolean ended;

  /** Every member is committed in its target color. */
  boolean done;

  int forwarded;

  /** Clients waiting for the GROUP_RESULT: channel and request id. */
  final List<Channel> waiters = new ArrayList<>(1);

  final List<Long> waiterRequestIds = new ArrayList<>(1);

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
  }

  void stage(int index, long address, long session, long sequence) {
    memberAddress[index] = address;
    tokenSession[index] = session;
    tokenSequence[index] = sequence;
    staged++;
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
