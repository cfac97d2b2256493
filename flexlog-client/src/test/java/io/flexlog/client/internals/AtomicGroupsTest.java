package io.flexlog.client.internals;

import static io.flexlog.client.internals.ClientHarness.ALLOC;
import static io.flexlog.client.internals.ClientHarness.DELIVERY_TIMEOUT_NS;
import static io.flexlog.client.internals.ClientHarness.EVENTS;
import static io.flexlog.client.internals.ClientHarness.ORDERS;
import static io.flexlog.client.internals.ClientHarness.ORDERS_A;
import static io.flexlog.client.internals.ClientHarness.REQUEST_TIMEOUT_NS;
import static io.flexlog.client.internals.ClientHarness.SESSION;
import static io.flexlog.client.internals.ClientHarness.failure;
import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.internals.RecordingOutbound.Sent;
import io.flexlog.core.error.AtomicMemberFailedException;
import io.flexlog.core.error.AtomicOutcomeUnknownException;
import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.FlexLogTimeoutException;
import io.flexlog.core.error.GroupAbortedException;
import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.core.error.StorageFullException;
import io.flexlog.core.protocol.CommitGroupDescriptor;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.GroupResultDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.StageAckDescriptor;
import io.flexlog.core.protocol.StageDescriptor;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The atomic-group role without sockets: stages, the commit, and every way a group ends, including
 * the lost-answer cases on the manual clock. The broker color is {@code global}; its first shard by
 * id, 10, is the broker shard (replicas 1, 2, 3). The group: two records to {@code orders}, one to
 * {@code events}.
 */
class AtomicGroupsTest {
  private final ClientHarness client = new ClientHarness();
  private CompletableFuture<Map<String, long[]>> future;
  private long groupHigh;
  private long groupLow;

  @AfterEach
  void release() {
    client.close();
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private List<Sent> start() {
    Map<String, List<byte[]>> records = new LinkedHashMap<>();
    records.put("orders", List.of(bytes("o1"), bytes("o2")));
    records.put("events", List.of(bytes("e1")));
    future = client.groups.appendAtomically(records);
    client.runLoop();
    List<Sent> stages = client.outbound.take();
    groupHigh = StageDescriptor.groupHigh(stages.get(0).frame());
    groupLow = StageDescriptor.groupLow(stages.get(0).frame());
    return stages;
  }

  private void ackStage(Sent stage) {
    client.deliver(
        StageAckDescriptor.encode(
            ALLOC,
            stage.requestId(),
            groupHigh,
            groupLow,
            StageDescriptor.memberIndex(stage.frame()),
            stage.node()));
  }

  /** Stages the group everywhere; returns the COMMIT_GROUPs that follow. */
  private List<Sent> staged() {
    start().forEach(this::ackStage);
    return client.outbound.take();
  }

  private void error(Sent request, ErrorCode code) {
    client.deliver(ErrorDescriptor.encode(ALLOC, request.requestId(), code, "test says " + code));
  }

  private void result(Sent commit, long... sns) {
    client.deliver(
        GroupResultDescriptor.encode(
            ALLOC, commit.requestId(), groupHigh, groupLow, commit.node(), sns));
  }

  @Test
  void shouldStageEveryMemberOnEveryBrokerReplicaThenCommitAndReturnTheSnsPerColor() {
    List<Sent> stages = start();
    assertThat(stages).hasSize(9).allMatch(s -> s.type() == MessageType.STAGE);
    assertThat(stages).extracting(Sent::node).containsOnly(1, 2, 3);
    assertThat(groupHigh).isEqualTo(SESSION);
    for (Sent stage : stages) {
      assertThat(StageDescriptor.brokerShardId(stage.frame())).isEqualTo(ORDERS_A.id());
      assertThat(StageDescriptor.memberCount(stage.frame())).isEqualTo(3);
      assertThat(StageDescriptor.tokenSession(stage.frame())).isEqualTo(SESSION);
      int index = StageDescriptor.memberIndex(stage.frame());
      assertThat(StageDescriptor.targetColorId(stage.frame()))
          .isEqualTo(index < 2 ? ORDERS.id() : EVENTS.id());
    }

    stages.forEach(this::ackStage);
    List<Sent> commits = client.outbound.take();
    assertThat(commits).extracting(Sent::node).containsExactly(1, 2, 3);
    assertThat(commits).allMatch(s -> s.type() == MessageType.COMMIT_GROUP);
    assertThat(commits).allMatch(s -> CommitGroupDescriptor.groupLow(s.frame()) == groupLow);
    assertThat(commits).extracting(Sent::requestId).doesNotHaveDuplicates();
    assertThat(future).isNotDone();

    result(commits.get(1), 11, 12, 40);
    Map<String, long[]> sns = future.join();
    assertThat(sns.keySet()).containsExactly("orders", "events");
    assertThat(sns.get("orders")).containsExactly(11, 12);
    assertThat(sns.get("events")).containsExactly(40);
    assertThat(client.groups.inFlight()).isZero();
  }

  @Test
  void shouldResendOnlyTheUnacknowledgedStagesAfterTheRequestTimeout() {
    List<Sent> stages = start();
    stages.subList(0, 8).forEach(this::ackStage);
    assertThat(client.outbound.take()).isEmpty();

    client.advance(REQUEST_TIMEOUT_NS + 1);

    List<Sent> resent = client.outbound.take();
    assertThat(resent).hasSize(1);
    assertThat(resent.get(0).node()).isEqualTo(stages.get(8).node());
    assertThat(StageDescriptor.memberIndex(resent.get(0).frame()))
        .isEqualTo(StageDescriptor.memberIndex(stages.get(8).frame()));
    ackStage(resent.get(0));
    assertThat(client.outbound.take(MessageType.COMMIT_GROUP)).hasSize(3);
  }

  @Test
  void shouldFailWithATimeoutSayingNothingAppearsWhenStagingDoesNotFinish() {
    start();

    client.advance(DELIVERY_TIMEOUT_NS);
    assertThat(future).isNotDone();
    client.advance(1);

    assertThat(failure(future))
        .isExactlyInstanceOf(FlexLogTimeoutException.class)
        .hasMessageContaining("nothing was committed, none of its records will appear");
    assertThat(client.outbound.take(MessageType.COMMIT_GROUP)).isEmpty();
  }

  @Test
  void shouldFailWithTheTypedErrorOfAStageRefusalBeforeTheCommit() {
    List<Sent> stages = start();

    error(stages.get(0), ErrorCode.NOT_READY); // retried by the timer
    assertThat(future).isNotDone();
    error(stages.get(0), ErrorCode.STORAGE_FULL);

    assertThat(failure(future)).isInstanceOf(StorageFullException.class);
    assertThat(client.groups.inFlight()).isZero();
  }

  @Test
  void shouldResendTheCommitWhenItsAnswerIsLostAndCompleteOnTheResult() {
    List<Sent> commits = staged();
    error(commits.get(0), ErrorCode.INTERNAL); // a refusal that is not definite: retried

    client.advance(REQUEST_TIMEOUT_NS + 1);

    List<Sent> again = client.outbound.take();
    assertThat(again).extracting(Sent::type).containsOnly(MessageType.COMMIT_GROUP);
    assertThat(again)
        .extracting(Sent::requestId)
        .isEqualTo(commits.stream().map(Sent::requestId).toList());
    result(again.get(2), 1, 2, 3);
    assertThat(future.join().get("events")).containsExactly(3);
  }

  @Test
  void shouldEndWithGroupAbortedOnlyOnceEveryBrokerReplicaAbortedIt() {
    List<Sent> commits = staged();

    error(commits.get(0), ErrorCode.GROUP_ABORTED);
    error(commits.get(1), ErrorCode.GROUP_ABORTED);
    assertThat(future).isNotDone();
    error(commits.get(2), ErrorCode.GROUP_ABORTED);

    assertThat(failure(future))
        .isInstanceOf(GroupAbortedException.class)
        .hasMessageContaining("none of its records will appear");
  }

  @Test
  void shouldEndWithOutcomeUnknownWhenEveryReplicaAbortedOrForgotIt() {
    List<Sent> commits = staged();

    error(commits.get(0), ErrorCode.GROUP_ABORTED);
    error(commits.get(1), ErrorCode.ATOMIC_OUTCOME_UNKNOWN);
    assertThat(future).isNotDone();
    error(commits.get(2), ErrorCode.ATOMIC_OUTCOME_UNKNOWN);

    assertThat(failure(future))
        .isInstanceOf(AtomicOutcomeUnknownException.class)
        .hasMessageContaining("all records or none");
  }

  @Test
  void shouldEndWithMemberFailedAsSoonAsOneReplicaReportsIt() {
    List<Sent> commits = staged();

    error(commits.get(1), ErrorCode.ATOMIC_MEMBER_FAILED);

    assertThat(failure(future))
        .isInstanceOf(AtomicMemberFailedException.class)
        .hasMessage("test says ATOMIC_MEMBER_FAILED");
  }

  @Test
  void shouldEndWithOutcomeUnknownWhenNoSnsArriveByTheDeadlineAfterTheCommit() {
    staged();

    for (long waited = 0; waited < DELIVERY_TIMEOUT_NS; waited += REQUEST_TIMEOUT_NS) {
      client.advance(REQUEST_TIMEOUT_NS);
      client.outbound.take(); // every re-sent commit is lost
    }
    assertThat(future).isNotDone();
    client.advance(1);

    assertThat(failure(future))
        .isInstanceOf(AtomicOutcomeUnknownException.class)
        .hasMessageContaining("was committed but no replica of broker shard 10 answered");
  }

  @Test
  void shouldIgnoreAResultForAnotherGroup() {
    List<Sent> commits = staged();

    client.deliver(
        GroupResultDescriptor.encode(
            ALLOC, commits.get(0).requestId(), groupHigh, groupLow + 1, 1, new long[] {1, 2, 3}));

    assertThat(future).isNotDone();
  }

  @Test
  void shouldEndCommittedGroupsWithOutcomeUnknownAndOthersWithTheErrorOnClose() {
    staged();
    CompletableFuture<Map<String, long[]>> committed = future;
    start();

    client.groups.failAll(new FlexLogException("closed"));

    assertThat(failure(committed)).isInstanceOf(AtomicOutcomeUnknownException.class);
    assertThat(failure(future)).isExactlyInstanceOf(FlexLogException.class).hasMessage("closed");
  }

  @Test
  void shouldRefuseAnEmptyGroupWithoutSending() {
    future = client.groups.appendAtomically(Map.of("orders", List.of()));
    client.runLoop();

    assertThat(failure(future)).isInstanceOf(InvalidArgumentException.class);
    assertThat(client.outbound.take()).isEmpty();
  }
}
