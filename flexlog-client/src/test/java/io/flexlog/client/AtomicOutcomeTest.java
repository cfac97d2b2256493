package io.flexlog.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.error.AtomicMemberFailedException;
import io.flexlog.core.error.AtomicOutcomeUnknownException;
import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.FlexLogTimeoutException;
import io.flexlog.core.error.GroupAbortedException;
import io.flexlog.core.error.StorageFullException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The client's outcome rules for atomic appends, against a fake node that is the only replica of
 * the broker shard: before the commit a failure is typed and final; after it only the SNs, every
 * replica aborting, a failed member, or "outcome unknown" end the append.
 */
class AtomicOutcomeTest {
  private static final Map<String, List<byte[]>> GROUP =
      Map.of(
          "global",
          List.of("a".getBytes(StandardCharsets.UTF_8), "b".getBytes(StandardCharsets.UTF_8)));

  private final FakeNode node;
  private FlexLog client;

  AtomicOutcomeTest() throws InterruptedException {
    node = new FakeNode();
  }

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    node.close();
  }

  private FlexLog connect(Duration deliveryTimeout) {
    client =
        FlexLog.connect(
            FlexLogConfig.builder()
                .bootstrapServers(node.bootstrap())
                .requestTimeout(Duration.ofMillis(100))
                .deliveryTimeout(deliveryTimeout)
                .readTimeout(Duration.ofSeconds(5))
                .build());
    return client;
  }

  @Test
  void shouldKeepRetryingTheCommitThroughErrorsAndLostConnectionsUntilTheSnsArrive() {
    node.commitAnswers.add(ErrorCode.INTERNAL);
    node.commitAnswers.add(FakeNode.CLOSE);
    node.commitAnswers.add(ErrorCode.INVALID_ARGUMENT);
    node.commitAnswers.add(FakeNode.SILENT);
    node.commitAnswers.add(ErrorCode.NOT_READY);

    Map<String, long[]> sns = connect(Duration.ofSeconds(10)).appendAtomically(GROUP);

    assertThat(sns.get("global")).hasSize(2);
    assertThat(node.commits.get()).isEqualTo(6);
  }

  @Test
  void shouldThrowOutcomeUnknownNamingTheGroupWhenNoCommitIsAnsweredByTheDeadline() {
    for (int i = 0; i < 1000; i++) {
      node.commitAnswers.add(FakeNode.SILENT);
    }

    assertThatThrownBy(() -> connect(Duration.ofMillis(800)).appendAtomically(GROUP))
        .isExactlyInstanceOf(AtomicOutcomeUnknownException.class)
        .hasMessageMatching("(?s)atomic group [0-9a-f]{32} .*may still appear.*");
    assertThat(node.commits.get()).as("retried").isGreaterThan(1);
  }

  @Test
  void shouldThrowGroupAbortedOnlyWhenEveryReplicaAborted() {
    node.commitAnswers.add(ErrorCode.GROUP_ABORTED);

    assertThatThrownBy(() -> connect(Duration.ofSeconds(10)).appendAtomically(GROUP))
        .isExactlyInstanceOf(GroupAbortedException.class)
        .hasMessageContaining("every replica of broker shard");
  }

  @Test
  void shouldThrowOutcomeUnknownAtOnceWhenEveryReplicaForgotTheGroup() {
    node.commitAnswers.add(ErrorCode.ATOMIC_OUTCOME_UNKNOWN);
    long start = System.nanoTime();

    assertThatThrownBy(() -> connect(Duration.ofSeconds(30)).appendAtomically(GROUP))
        .isExactlyInstanceOf(AtomicOutcomeUnknownException.class)
        .hasMessageContaining("may have appeared");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
  }

  @Test
  void shouldReportAMemberThatFailedForGoodAfterTheCommit() {
    node.commitAnswers.add(ErrorCode.ATOMIC_MEMBER_FAILED);

    assertThatThrownBy(() -> connect(Duration.ofSeconds(10)).appendAtomically(GROUP))
        .isExactlyInstanceOf(AtomicMemberFailedException.class);
  }

  @Test
  void shouldFailWithTheTypedErrorAndNeverCommitWhenStagingFails() {
    node.stageError = ErrorCode.STORAGE_FULL;

    assertThatThrownBy(() -> connect(Duration.ofSeconds(10)).appendAtomically(GROUP))
        .isExactlyInstanceOf(StorageFullException.class);
    assertThat(node.commits.get()).isZero();
  }

  @Test
  void shouldTimeOutWithoutOutcomeUnknownWhenStagingNeverFinished() {
    node.stageError = ErrorCode.NOT_READY;

    assertThatThrownBy(() -> connect(Duration.ofMillis(600)).appendAtomically(GROUP))
        .isExactlyInstanceOf(FlexLogTimeoutException.class)
        .hasMessageContaining("nothing was committed");
    assertThat(node.commits.get()).isZero();
  }
}
