package io.flexlog.replica.atomic;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.StageDescriptor;
import io.flexlog.replica.replication.Connection;
import io.flexlog.replica.replication.ReplicaLimits;
import io.flexlog.replica.replication.ReplicaRuntime;
import io.flexlog.replica.storage.LogStorage;
import io.netty.buffer.ByteBuf;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * STAGE: checks a member against this replica's topology and limits, appends it to the staging log
 * and acknowledges it once durable. A member already staged is acknowledged again without a second
 * entry, so a client may resend a STAGE freely. A group that already has ABORTED refuses new
 * members with GROUP_ABORTED.
 *
 * <p>Threading: confined to the replica's event loop.
 */
final class Stager {
  private final int nodeId;
  private final Supplier<Topology> topology;
  private final ReplicaLimits limits;
  private final GroupTable table;
  private final StagingLog log;
  private final AtomicReplies replies;
  private final AfterFlush afterFlush;
  private final ReplicaRuntime scheduler;
  private final Runnable armTimer;

  Stager(
      int nodeId,
      Supplier<Topology> topology,
      ReplicaLimits limits,
      GroupTable table,
      StagingLog log,
      AtomicReplies replies,
      AfterFlush afterFlush,
      ReplicaRuntime scheduler,
      Runnable armTimer) {
    this.nodeId = nodeId;
    this.topology = topology;
    this.limits = limits;
    this.table = table;
    this.log = log;
    this.replies = replies;
    this.afterFlush = afterFlush;
    this.scheduler = scheduler;
    this.armTimer = armTimer;
  }

  /** STAGE from a client; the caller keeps the frame. */
  void onStage(Connection connection, ByteBuf frame) {
    long requestId = FrameDescriptor.requestId(frame);
    long high = StageDescriptor.groupHigh(frame);
    long low = StageDescriptor.groupLow(frame);
    int index = StageDescriptor.memberIndex(frame);
    int count = StageDescriptor.memberCount(frame);
    int brokerShard = StageDescriptor.brokerShardId(frame);
    if (!check(connection, requestId, frame, brokerShard, count)) {
      return;
    }
    StagedGroup group = table.get(high, low);
    if (group != null && (group.memberCount != count || group.brokerShardId != brokerShard)) {
      replies.error(
          connection,
          requestId,
          ErrorCode.INVALID_ARGUMENT,
          "group "
              + group.describe()
              + " was staged with "
              + group.memberCount
              + " members on shard "
              + group.brokerShardId);
      return;
    }
    if (group != null && group.abortWritten) {
      replies.aborted(connection, requestId, group);
      return;
    }
    if (group == null) {
      group = table.getOrCreate(high, low, brokerShard, count);
      table.addUnsettled(group);
      armTimer.run();
    }
    group.lastStageNs = scheduler.nanoTime();
    if (group.memberAddress[index] == StagedGroup.NO_ADDRESS && !group.settled()) {
      long address = append(connection, requestId, frame, group);
      if (address == LogStorage.NO_SPACE) {
        if (group.staged == 0) {
          table.forget(group);
        }
        return;
      }
      group.stage(
          index,
          address,
          StageDescriptor.tokenSession(frame),
          StageDescriptor.tokenSequence(frame),
          StageDescriptor.targetColorId(frame),
          StageDescriptor.targetShardId(frame));
    }
    afterFlush.add(() -> replies.stageAck(connection, requestId, high, low, index));
  }

  /** Appends the member; on a refusal by the log writes the ERROR and returns NO_SPACE. */
  private long append(Connection connection, long requestId, ByteBuf frame, StagedGroup group) {
    long address;
    try {
      address = log.appendMember(frame, group);
    } catch (IllegalArgumentException e) {
      replies.error(connection, requestId, ErrorCode.RECORD_TOO_LARGE, e.getMessage());
      return LogStorage.NO_SPACE;
    }
    if (address == LogStorage.NO_SPACE) {
      replies.error(
          connection,
          requestId,
          ErrorCode.STORAGE_FULL,
          "replica " + nodeId + " has no log space left to stage a member");
    }
    return address;
  }

  /** Validates a STAGE against the topology and limits; on a refusal writes the ERROR. */
  private boolean check(
      Connection connection, long requestId, ByteBuf frame, int brokerShard, int count) {
    Topology current = topology.get();
    Optional<Shard> broker = current.shard(brokerShard);
    int targetColor = StageDescriptor.targetColorId(frame);
    int targetShard = StageDescriptor.targetShardId(frame);
    Optional<Shard> target = current.shard(targetShard);
    ErrorCode code = ErrorCode.INVALID_ARGUMENT;
    String refusal = null;
    if (broker.isEmpty() || !broker.get().replicaNodeIds().contains(nodeId)) {
      code = ErrorCode.UNKNOWN_SHARD;
      refusal = "replica node " + nodeId + " does not host broker shard " + brokerShard;
    } else if (current.color(targetColor).isEmpty()) {
      code = ErrorCode.UNKNOWN_COLOR;
      refusal = "unknown target color id " + targetColor;
    } else if (target.isEmpty()) {
      code = ErrorCode.UNKNOWN_SHARD;
      refusal = "unknown target shard " + targetShard;
    } else if (!current.isInSubtree(target.get().colorId(), targetColor)) {
      refusal = "shard " + targetShard + " is not in the subtree of color id " + targetColor;
    } else if (count > AtomicAppends.MAX_MEMBERS) {
      refusal =
          "an atomic append has at most " + AtomicAppends.MAX_MEMBERS + " members, got " + count;
    } else if (StageDescriptor.payloadLength(frame) > limits.maxRecordBytes()) {
      code = ErrorCode.RECORD_TOO_LARGE;
      refusal =
          "member "
              + StageDescriptor.memberIndex(frame)
              + " of "
              + StageDescriptor.payloadLength(frame)
              + " bytes exceeds max-record-bytes="
              + limits.maxRecordBytes();
    }
    if (refusal != null) {
      replies.error(connection, requestId, code, refusal);
      return false;
    }
    return true;
  }
}
