package io.flexlog.replica.atomic;

import static io.flexlog.replica.atomic.AtomicHarness.LEFT;
import static io.flexlog.replica.atomic.AtomicHarness.RIGHT;
import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Sn;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.replica.atomic.AtomicHarness.Reply;
import io.flexlog.replica.replication.RecordingConnection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** STAGE on its own ({@link Stager}), driven without sockets on virtual time. */
class StagerTest {
  private static final Duration RETRY = Duration.ofMillis(100);
  private static final Duration RETENTION = Duration.ofSeconds(30);

  @TempDir Path dir;
  private AtomicHarness node;

  @BeforeEach
  void open() {
    node =
        new AtomicHarness(
            dir,
            new AtomicConfig(RETENTION, 100, Duration.ofSeconds(10), RETRY, RETRY.multipliedBy(8)));
  }

  @AfterEach
  void close() {
    node.close();
  }

  @Test
  void shouldAcknowledgeAStagedMemberOnlyOnceItIsDurable() {
    node.stage(1, 0, 2, LEFT, LEFT, 10);

    assertThat(node.client.unflushedParts()).isZero();
    assertThat(node.replies()).as("nothing before the flush").isEmpty();
    assertThat(node.endOfTurnRequested).isTrue();

    node.endTurn();

    List<Reply> replies = node.replies();
    assertThat(replies).hasSize(1);
    assertThat(replies.get(0).type()).isEqualTo(MessageType.STAGE_ACK);
    assertThat(replies.get(0).requestId()).isEqualTo(100);
    assertThat(replies.get(0).memberIndex()).isZero();
  }

  @Test
  void shouldAnswerADuplicateStageIdempotentlyWithoutASecondEntry() {
    RecordingConnection retry = new RecordingConnection();
    node.stage(1, 0, 2, LEFT, LEFT, 10);
    node.endTurn();
    node.stage(retry, 1, 0, 2, AtomicHarness.BROKER, LEFT, LEFT, 10, 200);
    node.endTurn();

    assertThat(node.replies()).extracting(Reply::type).containsExactly(MessageType.STAGE_ACK);
    List<Reply> again = AtomicHarness.replies(retry);
    assertThat(again).hasSize(1);
    assertThat(again.get(0).type()).isEqualTo(MessageType.STAGE_ACK);
    assertThat(again.get(0).requestId()).isEqualTo(200);
    assertThat(again.get(0).memberIndex()).isZero();

    node.stage(1, 1, 2, RIGHT, RIGHT, 11);
    node.commit(1, 9, 2);
    node.endTurn();
    assertThat(node.forwarded).as("each member once per target replica").hasSize(4);
    for (int replica : new int[] {1, 2}) {
      node.ack(replica, 10, Sn.of(1, 10), LEFT);
      node.ack(replica, 11, Sn.of(1, 11), RIGHT);
    }
    node.endTurn();
    node.scheduler.advance(RETENTION.plus(RETRY));

    assertThat(node.atomic.groupCount()).isZero();
    assertThat(node.atomic.stagingTrimPoint())
        .as("two members, END and DONE: the duplicate wrote nothing")
        .isEqualTo(4);
  }

  @Test
  void shouldRefuseAMemberOfAGroupStagedWithAnotherShape() {
    node.stage(1, 0, 2, LEFT, LEFT, 10);
    node.endTurn();
    node.replies();

    node.stage(1, 1, 3, RIGHT, RIGHT, 11);

    List<Reply> replies = node.replies();
    assertThat(replies).hasSize(1);
    assertThat(replies.get(0).code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(replies.get(0).message()).contains("was staged with 2 members on shard 0");
  }

  @Test
  void shouldRefuseAMemberForABrokerShardThisReplicaDoesNotHost() {
    node.stage(node.client, 1, 0, 2, AtomicHarness.FOREIGN_SHARD, LEFT, LEFT, 10, 100);

    List<Reply> replies = node.replies();
    assertThat(replies).hasSize(1);
    assertThat(replies.get(0).code()).isEqualTo(ErrorCode.UNKNOWN_SHARD);
    assertThat(replies.get(0).message()).contains("does not host broker shard 3");
    assertThat(node.atomic.groupCount()).isZero();
    assertThat(node.endOfTurnRequested).isFalse();
  }
}
