package io.flexlog.replica.atomic;

import static io.flexlog.replica.atomic.AtomicHarness.LEFT;
import static io.flexlog.replica.atomic.AtomicHarness.RIGHT;
import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Sn;
import io.flexlog.replica.atomic.AtomicHarness.Forwarded;
import io.flexlog.replica.atomic.AtomicHarness.Reply;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Forwarding and the classification of its results ({@link Forwarder}, {@link ForwardErrors}),
 * driven without sockets on virtual time. Group 1 has member 0 (token 10) to {@code left} and
 * member 1 (token 11) to {@code right}; {@code left} is acknowledged at once.
 */
class ForwarderTest {
  private static final Duration RETRY = Duration.ofMillis(100);
  private static final Duration RETRY_MAX = Duration.ofMillis(800);

  @TempDir Path dir;
  private AtomicHarness node;

  @BeforeEach
  void open() {
    node =
        new AtomicHarness(
            dir,
            new AtomicConfig(Duration.ofMinutes(1), 100, Duration.ofMinutes(1), RETRY, RETRY_MAX));
    node.stagePair(1, 10);
    node.endTurn();
    node.replies();
    node.commit(1, 9, 2);
    node.endTurn();
    node.ack(1, 10, Sn.of(1, 10), LEFT);
    node.ack(2, 10, Sn.of(1, 10), LEFT);
  }

  @AfterEach
  void close() {
    node.close();
  }

  private double failures(ErrorCode code) {
    return node.registry
        .counter(AtomicAppends.FORWARD_FAILURES_METRIC, "node", "1", "code", code.name())
        .count();
  }

  private Reply singleReply() {
    List<Reply> replies = node.replies();
    assertThat(replies).hasSize(1);
    return replies.get(0);
  }

  @Test
  void shouldResendWithDoublingDelaysCappedAtTheMaximum() {
    node.scheduler.advance(Duration.ofMillis(3200));

    long start = node.forwarded.get(0).atNs();
    assertThat(node.forwarded)
        .filteredOn(sent -> sent.sequence() == 11 && sent.nodeId() == 2)
        .extracting(sent -> Duration.ofNanos(sent.atNs() - start).toMillis())
        .containsExactly(0L, 100L, 300L, 700L, 1500L, 2300L, 3100L);
  }

  @Test
  void shouldRetryAnUnknownShardOfATargetThatLagsBehindThisReplicasTopology() {
    node.refuse(11, ErrorCode.UNKNOWN_SHARD);
    node.refuse(11, ErrorCode.NOT_READY);
    node.forwarded.clear();

    node.scheduler.advance(RETRY);

    assertThat(node.forwarded).extracting(Forwarded::sequence).containsOnly(11L).hasSize(2);
    assertThat(failures(ErrorCode.UNKNOWN_SHARD)).isZero();
    node.endTurn();
    assertThat(node.replies()).isEmpty();
  }

  @Test
  void shouldFailAMemberForGoodOnceItsTargetIsGoneFromThisReplicasTopology() {
    node.topology = AtomicHarness.topology(false);
    node.refuse(11, ErrorCode.UNKNOWN_COLOR);
    node.endTurn();

    Reply failed = singleReply();
    assertThat(failed.code()).isEqualTo(ErrorCode.ATOMIC_MEMBER_FAILED);
    assertThat(failed.message()).contains("member 1", "UNKNOWN_COLOR", "0@" + Sn.of(1, 10));
    assertThat(failures(ErrorCode.UNKNOWN_COLOR)).isEqualTo(1.0);
    node.forwarded.clear();
    node.scheduler.advance(RETRY.multipliedBy(20));
    assertThat(node.forwarded).as("no retry of a failed member").isEmpty();
  }

  @Test
  void shouldFailAMemberWhoseTargetLeftTheTopologyBeforeItsNextAttempt() {
    node.topology = AtomicHarness.topology(false);
    node.forwarded.clear();

    node.scheduler.advance(RETRY);
    node.endTurn();

    assertThat(node.forwarded).as("nothing sent to a target that is gone").isEmpty();
    Reply failed = singleReply();
    assertThat(failed.code()).isEqualTo(ErrorCode.ATOMIC_MEMBER_FAILED);
    assertThat(failed.message())
        .contains("member 1 (color id 2, shard 2) failed with UNKNOWN_COLOR");
    assertThat(failures(ErrorCode.UNKNOWN_COLOR)).isEqualTo(1.0);
  }

  @Test
  void shouldIgnoreAcksFromNodesThatDoNotReplicateTheTargetShard() {
    node.ack(1, 11, Sn.of(1, 11), RIGHT);
    node.ack(AtomicHarness.FOREIGN_SHARD + 7, 11, Sn.of(1, 11), RIGHT);
    node.endTurn();
    assertThat(node.replies()).isEmpty();

    node.ack(2, 11, Sn.of(1, 11), RIGHT);
    node.endTurn();

    assertThat(singleReply().sns()).containsExactly(Sn.of(1, 10), Sn.of(1, 11));
  }

  @Test
  void shouldAnswerByClosingTheConnectionWhileAnswersAreLost() {
    node.atomic.loseAnswersWhile(() -> true);
    node.ack(1, 11, Sn.of(1, 11), RIGHT);
    node.ack(2, 11, Sn.of(1, 11), RIGHT);
    node.endTurn();

    assertThat(node.client.isActive()).isFalse();
    assertThat(node.replies()).isEmpty();
  }

  @Test
  void shouldDoubleTheRetryDelayAndUseTheMaximumFromTheTwentiethAttemptOn() {
    Duration retryMax = Duration.ofHours(1);
    Forwarder forwarder = delaysOnly(Duration.ofMillis(1), retryMax);

    assertThat(forwarder.retryDelayNs(0)).isEqualTo(1_000_000L);
    assertThat(forwarder.retryDelayNs(1)).isEqualTo(2_000_000L);
    assertThat(forwarder.retryDelayNs(19)).isEqualTo(1_000_000L << 19);
    assertThat(forwarder.retryDelayNs(20)).isEqualTo(retryMax.toNanos());
    assertThat(forwarder.retryDelayNs(63)).isEqualTo(retryMax.toNanos());
  }

  @Test
  void shouldCapTheRetryDelayAtTheMaximumBeforeTheTwentiethAttempt() {
    Forwarder forwarder = delaysOnly(RETRY, RETRY_MAX);

    assertThat(forwarder.retryDelayNs(2)).isEqualTo(Duration.ofMillis(400).toNanos());
    assertThat(forwarder.retryDelayNs(3)).isEqualTo(RETRY_MAX.toNanos());
    assertThat(forwarder.retryDelayNs(19)).isEqualTo(RETRY_MAX.toNanos());
  }

  /** A forwarder that can only compute retry delays: it has no log, transport or topology. */
  private static Forwarder delaysOnly(Duration retry, Duration retryMax) {
    AtomicConfig config =
        new AtomicConfig(Duration.ofMinutes(1), 100, Duration.ofMinutes(1), retry, retryMax);
    return new Forwarder(1, null, null, null, null, config, null, group -> {});
  }
}
