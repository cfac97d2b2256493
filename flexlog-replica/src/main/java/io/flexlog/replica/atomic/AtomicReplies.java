package io.flexlog.replica.atomic;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.GroupResultDescriptor;
import io.flexlog.core.protocol.StageAckDescriptor;
import io.flexlog.replica.replication.Connection;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Encodes every frame the atomic component sends to clients: STAGE_ACK, GROUP_RESULT and ERROR
 * (refusals, GROUP_ABORTED, ATOMIC_OUTCOME_UNKNOWN, ATOMIC_MEMBER_FAILED), with the messages a user
 * reads. Errors are flushed at once; acks and results are flushed once per turn ({@link #flush()}).
 *
 * <p>Threading: confined to the replica's event loop, except {@link #loseAnswersWhile}.
 */
final class AtomicReplies {
  private static final Logger LOG = LoggerFactory.getLogger(AtomicReplies.class);

  private final int nodeId;
  private final AtomicConfig config;
  private final List<Connection> touched = new ArrayList<>();
  private volatile BooleanSupplier loseAnswers = () -> false;

  AtomicReplies(int nodeId, AtomicConfig config) {
    this.nodeId = nodeId;
    this.config = config;
  }

  /** Fault injection: see {@link AtomicAppends#loseAnswersWhile}. Any thread. */
  void loseAnswersWhile(BooleanSupplier lose) {
    this.loseAnswers = lose;
  }

  /** STAGE_ACK for one member; flushed at the end of the turn. */
  void stageAck(Connection connection, long requestId, long high, long low, int index) {
    write(
        connection,
        StageAckDescriptor.encode(connection.alloc(), requestId, high, low, index, nodeId));
  }

  /**
   * The answer to a finished group: GROUP_RESULT with its SNs, or ATOMIC_MEMBER_FAILED naming the
   * members that failed for good and the SNs of the others; flushed at the end of the turn. While
   * answers are to be lost (fault injection) the connection is closed instead.
   */
  void outcome(Connection connection, long requestId, StagedGroup group) {
    if (loseAnswers.getAsBoolean()) {
      LOG.warn(
          "replica {} loses the answer for group {} (fault injection)", nodeId, group.describe());
      connection.close();
      return;
    }
    if (!group.anyMemberFailed()) {
      write(
          connection,
          GroupResultDescriptor.encode(
              connection.alloc(), requestId, group.groupHigh, group.groupLow, nodeId, group.sns));
      return;
    }
    write(
        connection,
        ErrorDescriptor.encode(
            connection.alloc(), requestId, ErrorCode.ATOMIC_MEMBER_FAILED, memberFailures(group)));
  }

  private static String memberFailures(StagedGroup group) {
    StringBuilder message =
        new StringBuilder("atomic group ").append(group.describe()).append(" was committed, but");
    StringBuilder placed = new StringBuilder();
    for (int i = 0; i < group.memberCount; i++) {
      if (group.sns[i] < 0) {
        message
            .append(" member ")
            .append(i)
            .append(" (color id ")
            .append(group.targetColor[i])
            .append(", shard ")
            .append(group.targetShard[i])
            .append(") failed with ")
            .append(ErrorCode.of((int) -group.sns[i]))
            .append(';');
      } else {
        placed.append(placed.length() == 0 ? "" : ", ").append(i).append('@').append(group.sns[i]);
      }
    }
    message.append(" the other members were placed (member@SN): [").append(placed).append(']');
    return message.toString();
  }

  /** GROUP_ABORTED: this replica aborted the group and never places it. */
  void aborted(Connection connection, long requestId, StagedGroup group) {
    error(
        connection,
        requestId,
        ErrorCode.GROUP_ABORTED,
        "atomic group "
            + group.describe()
            + " was aborted by replica node "
            + nodeId
            + " (no commit within "
            + AtomicConfig.ABANDON_AFTER
            + "="
            + config.abandonAfter().toMillis()
            + " ms of its last stage); this replica never places it");
  }

  /** ATOMIC_OUTCOME_UNKNOWN: a COMMIT_GROUP for a group this replica does not know. */
  void unknownGroup(Connection connection, long requestId, long high, long low) {
    error(
        connection,
        requestId,
        ErrorCode.ATOMIC_OUTCOME_UNKNOWN,
        "group "
            + StagedGroup.describe(high, low)
            + " is unknown at replica node "
            + nodeId
            + ": never staged here, or finished or aborted and forgotten after "
            + AtomicConfig.RESULT_RETENTION
            + "; it may have been placed");
  }

  /** An ERROR frame, flushed at once. */
  void error(Connection connection, long requestId, ErrorCode code, String message) {
    connection.write(ErrorDescriptor.encode(connection.alloc(), requestId, code, message));
    connection.flush();
  }

  /** Flushes every connection written to since the last call. */
  void flush() {
    for (int i = 0; i < touched.size(); i++) {
      touched.get(i).flush();
    }
    touched.clear();
  }

  private void write(Connection connection, ByteBuf frame) {
    connection.write(frame);
    if (!touched.contains(connection)) {
      touched.add(connection);
    }
  }
}
