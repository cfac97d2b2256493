package io.flexlog.replica.atomic;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.protocol.CommitGroupDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.replica.replication.Connection;
import io.flexlog.replica.replication.ReplicaRuntime;
import io.micrometer.core.instrument.Counter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides each group's fate on this replica, and writes it down before acting on it:
 *
 * <ul>
 *   <li><b>END</b> only on COMMIT_GROUP, only when every member is staged here and no ABORTED was
 *       written; forwarding starts once END is durable.
 *   <li><b>ABORTED</b> only by the abandon timer ({@link Housekeeping}), only when no END was
 *       written; COMMIT_GROUP gets GROUP_ABORTED once ABORTED is durable.
 *   <li><b>DONE</b> once every member is placed or failed for good; the waiting clients get the
 *       outcome once DONE is durable, and later COMMIT_GROUP retries are answered from it.
 * </ul>
 *
 * Whichever of END and ABORTED this replica wrote first decides for it.
 *
 * <p>Threading: confined to the replica's event loop.
 */
final class GroupDecisions {
  private static final Logger LOG = LoggerFactory.getLogger(GroupDecisions.class);

  private final int nodeId;
  private final AtomicConfig config;
  private final GroupTable table;
  private final StagingLog log;
  private final AtomicReplies replies;
  private final AfterFlush afterFlush;
  private final Forwarder forwarder;
  private final ReplicaRuntime scheduler;
  private final Runnable armTimer;
  private final Counter aborted;

  GroupDecisions(
      int nodeId,
      AtomicConfig config,
      GroupTable table,
      StagingLog log,
      AtomicReplies replies,
      AfterFlush afterFlush,
      Forwarder forwarder,
      ReplicaRuntime scheduler,
      Runnable armTimer,
      Counter aborted) {
    this.nodeId = nodeId;
    this.config = config;
    this.table = table;
    this.log = log;
    this.replies = replies;
    this.afterFlush = afterFlush;
    this.forwarder = forwarder;
    this.scheduler = scheduler;
    this.armTimer = armTimer;
    this.aborted = aborted;
  }

  /** COMMIT_GROUP from a client; the caller keeps the frame. */
  void onCommitGroup(Connection connection, ByteBuf frame) {
    long requestId = FrameDescriptor.requestId(frame);
    long high = CommitGroupDescriptor.groupHigh(frame);
    long low = CommitGroupDescriptor.groupLow(frame);
    int count = CommitGroupDescriptor.memberCount(frame);
    int brokerShard = CommitGroupDescriptor.brokerShardId(frame);
    StagedGroup group = table.get(high, low);
    if (group == null) {
      replies.unknownGroup(connection, requestId, high, low);
      return;
    }
    if (group.memberCount != count || group.brokerShardId != brokerShard) {
      replies.error(
          connection, requestId, ErrorCode.INVALID_ARGUMENT, otherShape(group, count, brokerShard));
      return;
    }
    if (group.done) {
      replies.outcome(connection, requestId, group);
      replies.flush();
      return;
    }
    if (group.aborted) {
      replies.aborted(connection, requestId, group);
      return;
    }
    if (!group.abortWritten && !group.fullyStaged()) {
      replies.error(connection, requestId, ErrorCode.INVALID_ARGUMENT, notFullyStaged(group));
      return;
    }
    group.addWaiter(connection, requestId);
    if (!group.endWritten && !group.abortWritten) {
      end(connection, requestId, group);
    }
    // An abort that is not durable yet answers the waiters once it is (see abort).
  }

  private static String otherShape(StagedGroup group, int count, int brokerShard) {
    return "group "
        + group.describe()
        + " was staged with "
        + group.memberCount
        + " members on shard "
        + group.brokerShardId
        + ", not "
        + count
        + " on shard "
        + brokerShard;
  }

  private String notFullyStaged(StagedGroup group) {
    return "group "
        + group.describe()
        + " of "
        + group.memberCount
        + " members is not fully staged on shard "
        + group.brokerShardId
        + " at replica node "
        + nodeId
        + " ("
        + group.staged
        + " of "
        + group.memberCount
        + ")";
  }

  /** Writes END; forwarding starts once it is durable. */
  private void end(Connection connection, long requestId, StagedGroup group) {
    if (!log.appendMarker(group, StagedEntryDescriptor.END, Unpooled.EMPTY_BUFFER)) {
      group.removeLastWaiter();
      replies.error(
          connection,
          requestId,
          ErrorCode.STORAGE_FULL,
          "replica " + nodeId + " has no log space for the end marker of " + group.describe());
      return;
    }
    group.endWritten = true;
    afterFlush.add(
        () -> {
          group.ended = true;
          forwarder.start(group);
          armTimer.run();
        });
  }

  /**
   * Writes ABORTED for a group without END whose client is gone; the group counts as aborted (and
   * in {@link AtomicAppends#GROUPS_ABORTED_METRIC}), and its waiters get GROUP_ABORTED, once the
   * entry is durable.
   *
   * @return false if the log had no space (the next timer tick tries again)
   */
  boolean abort(StagedGroup group) {
    if (!log.appendMarker(group, StagedEntryDescriptor.ABORTED, Unpooled.EMPTY_BUFFER)) {
      return false;
    }
    group.abortWritten = true;
    LOG.info(
        "replica {} aborts atomic group {}: {} of {} members staged, no commit within {} ms",
        nodeId,
        group.describe(),
        group.staged,
        group.memberCount,
        config.abandonAfter().toMillis());
    afterFlush.add(
        () -> {
          group.aborted = true;
          aborted.increment();
          table.settle(group, scheduler.nanoTime());
          for (int i = 0; i < group.waiters.size(); i++) {
            replies.aborted(group.waiters.get(i), group.waiterRequestIds.getLong(i), group);
          }
          group.clearWaiters();
        });
    return true;
  }

  /** Every member is placed (or failed for good): writes DONE, then answers the waiting clients. */
  void finish(StagedGroup group) {
    log.appendDone(group);
    afterFlush.add(
        () -> {
          group.done = true;
          table.settle(group, scheduler.nanoTime());
          for (int i = 0; i < group.waiters.size(); i++) {
            replies.outcome(group.waiters.get(i), group.waiterRequestIds.getLong(i), group);
          }
          group.clearWaiters();
        });
  }
}
