package io.flexlog.replica.atomic;

import static io.flexlog.replica.atomic.AtomicHarness.LEFT;
import static io.flexlog.replica.atomic.AtomicHarness.RIGHT;
import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Sn;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.replica.atomic.AtomicHarness.Forwarded;
import io.flexlog.replica.atomic.AtomicHarness.Reply;
import io.flexlog.replica.replication.RecordingConnection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The END / ABORTED / DONE rules ({@link GroupDecisions}) and the timer that aborts and forgets
 * ({@link Housekeeping}), driven without sockets on virtual time: the group's first STAGE arms the
 * timer, so it ticks at exact multiples of the retry period after that STAGE.
 */
class GroupDecisionsTest {
  private static final Duration RETRY = Duration.ofMillis(100);
  private static final Duration ABANDON = Duration.ofSeconds(10);
  private static final Duration RETENTION = Duration.ofSeconds(30);
  private static final Duration NANO = Duration.ofNanos(1);

  @TempDir Path dir;
  private AtomicHarness node;

  @BeforeEach
  void open() {
    node =
        new AtomicHarness(
            dir, new AtomicConfig(RETENTION, 100, ABANDON, RETRY, RETRY.multipliedBy(8)));
  }

  @AfterEach
  void close() {
    node.close();
  }

  private Reply singleReply() {
    List<Reply> replies = node.replies();
    assertThat(replies).hasSize(1);
    return replies.get(0);
  }

  /** Stages, commits and finishes group 1 (tokens 10, 11) at the current time. */
  private void finishPair() {
    node.stagePair(1, 10);
    node.commit(1, 9, 2);
    node.endTurn();
    for (int replica : new int[] {1, 2}) {
      node.ack(replica, 10, Sn.of(1, 10), LEFT);
      node.ack(replica, 11, Sn.of(1, 11), RIGHT);
    }
    node.endTurn();
  }

  @Test
  void shouldWriteEndAndForwardOnlyOnceEveryMemberIsStagedAndEndIsDurable() {
    node.stage(1, 0, 3, LEFT, LEFT, 10);
    node.stage(1, 1, 3, RIGHT, RIGHT, 11);
    node.endTurn();
    node.replies();

    node.commit(1, 8, 3);
    Reply refusal = singleReply();
    assertThat(refusal.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(refusal.message()).contains("not fully staged", "(2 of 3)");
    assertThat(node.endOfTurnRequested).as("no END written").isFalse();

    node.stage(1, 2, 3, LEFT, LEFT, 12);
    node.endTurn();
    node.replies();
    node.commit(1, 9, 3);
    assertThat(node.endOfTurnRequested).as("END written").isTrue();
    assertThat(node.forwarded).as("nothing forwarded before END is durable").isEmpty();

    node.endTurn();

    assertThat(node.forwarded)
        .extracting(Forwarded::nodeId, Forwarded::sequence)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(1, 10L),
            org.assertj.core.groups.Tuple.tuple(2, 10L),
            org.assertj.core.groups.Tuple.tuple(1, 11L),
            org.assertj.core.groups.Tuple.tuple(2, 11L),
            org.assertj.core.groups.Tuple.tuple(1, 12L),
            org.assertj.core.groups.Tuple.tuple(2, 12L));
    assertThat(node.replies()).as("no answer before every member is placed").isEmpty();
  }

  @Test
  void shouldAbortAtTheAbandonTimeAndAnswerOnlyOnceAbortedIsDurable() {
    node.stage(1, 0, 2, LEFT, LEFT, 10);
    node.endTurn();
    node.replies();

    node.scheduler.advance(ABANDON.minus(NANO));
    node.endTurn();
    node.commit(1, 8, 2);
    assertThat(singleReply().code()).as("not aborted yet").isEqualTo(ErrorCode.INVALID_ARGUMENT);

    node.scheduler.advance(NANO); // the tick at exactly ABANDON after the STAGE writes ABORTED
    node.commit(1, 9, 2);
    assertThat(node.replies()).as("ABORTED is not durable yet: the client waits").isEmpty();
    assertThat(abortedGroups()).as("not counted before ABORTED is durable").isZero();
    node.endTurn();
    assertThat(abortedGroups()).isEqualTo(1);

    Reply aborted = singleReply();
    assertThat(aborted.requestId()).isEqualTo(9);
    assertThat(aborted.code()).isEqualTo(ErrorCode.GROUP_ABORTED);
    assertThat(aborted.message()).contains("atomic.abandon-after=10000 ms");
    node.stage(1, 1, 2, RIGHT, RIGHT, 11);
    assertThat(singleReply().code()).as("a late member").isEqualTo(ErrorCode.GROUP_ABORTED);
    node.commit(1, 10, 2);
    assertThat(singleReply().code()).isEqualTo(ErrorCode.GROUP_ABORTED);
    node.endTurn();
    node.scheduler.advance(RETRY.multipliedBy(10));
    assertThat(node.forwarded).isEmpty();
    assertThat(abortedGroups()).as("counted once").isEqualTo(1);
  }

  private double abortedGroups() {
    return node.registry
        .get(AtomicAppends.GROUPS_ABORTED_METRIC)
        .tag("node", Integer.toString(AtomicHarness.NODE))
        .counter()
        .count();
  }

  @Test
  void shouldKeepAnEndWrittenBeforeTheAbandonTimeEvenIfNotYetDurable() {
    node.stagePair(1, 10);
    node.endTurn();
    node.replies();
    node.scheduler.advance(ABANDON.minus(NANO));

    node.commit(1, 9, 2); // END written, not flushed
    node.scheduler.advance(NANO); // the abandon tick sees END and leaves the group alone
    node.endTurn();

    assertThat(node.forwarded).hasSize(4);
    for (int replica : new int[] {1, 2}) {
      node.ack(replica, 10, Sn.of(1, 10), LEFT);
      node.ack(replica, 11, Sn.of(1, 11), RIGHT);
    }
    node.endTurn();
    Reply result = singleReply();
    assertThat(result.type()).isEqualTo(MessageType.GROUP_RESULT);
    assertThat(result.sns()).containsExactly(Sn.of(1, 10), Sn.of(1, 11));
    assertThat(abortedGroups()).isZero();
  }

  @Test
  void shouldAnswerEveryWaitingClientOnlyOnceDoneIsDurable() {
    RecordingConnection other = new RecordingConnection();
    node.stagePair(1, 10);
    node.endTurn();
    node.replies();
    node.commit(1, 9, 2);
    node.commit(other, 1, 19, 2);
    node.endTurn();
    for (int replica : new int[] {1, 2}) {
      node.ack(replica, 10, Sn.of(1, 10), LEFT);
      node.ack(replica, 11, Sn.of(1, 11), RIGHT);
    }
    assertThat(node.replies()).as("DONE is not durable yet").isEmpty();

    node.endTurn();

    Reply first = singleReply();
    List<Reply> second = AtomicHarness.replies(other);
    assertThat(first.requestId()).isEqualTo(9);
    assertThat(first.sns()).containsExactly(Sn.of(1, 10), Sn.of(1, 11));
    assertThat(second).hasSize(1);
    assertThat(second.get(0).requestId()).isEqualTo(19);
    assertThat(second.get(0).sns()).containsExactly(Sn.of(1, 10), Sn.of(1, 11));
  }

  @Test
  void shouldForgetASettledGroupExactlyAfterItsRetention() {
    finishPair();
    assertThat(node.replies())
        .extracting(Reply::type)
        .containsExactly(MessageType.STAGE_ACK, MessageType.STAGE_ACK, MessageType.GROUP_RESULT);

    node.scheduler.advance(RETENTION.minus(NANO));
    node.commit(1, 11, 2);
    Reply late = singleReply();
    assertThat(late.type()).as("still remembered").isEqualTo(MessageType.GROUP_RESULT);
    assertThat(late.requestId()).isEqualTo(11);
    assertThat(late.sns()).containsExactly(Sn.of(1, 10), Sn.of(1, 11));

    node.scheduler.advance(NANO);

    assertThat(node.atomic.groupCount()).isZero();
    node.commit(1, 12, 2);
    Reply unknown = singleReply();
    assertThat(unknown.code()).isEqualTo(ErrorCode.ATOMIC_OUTCOME_UNKNOWN);
    assertThat(unknown.message()).contains("may have been placed");
  }

  @Test
  void shouldRunTheTimerOnlyWhileAnyGroupIsKnownAndNotAfterClose() {
    assertThat(node.scheduler.pendingCount()).as("no group, no timer").isZero();
    finishPair();
    assertThat(node.scheduler.pendingCount()).isEqualTo(1);

    node.scheduler.advance(RETENTION.plus(RETRY));
    assertThat(node.atomic.groupCount()).isZero();
    assertThat(node.scheduler.pendingCount()).as("every group forgotten").isZero();

    node.stagePair(2, 20);
    assertThat(node.scheduler.pendingCount()).isEqualTo(1);
    node.atomic.close();
    assertThat(node.scheduler.pendingCount()).isZero();
  }
}
