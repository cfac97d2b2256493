package io.flexlog.server.control.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.admin.v1.AddColorRequest;
import io.flexlog.core.error.MetadataUnavailableException;
import io.flexlog.server.control.AdminClient;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leader of the metadata quorum that stepped down because no majority answered it stands for
 * election again after one election timeout, not after Ratis' default of 10 s. This is what made
 * appends stop for about 12 s after some kills of a role's leader in the failover kill loop: the
 * quorum's leader lost its majority (one peer dead, the other just restarted and slow), stepped
 * down, and the restarted peer could not win with its shorter log (docs/operations.md, "Why some
 * kills stopped appends for about 12 s").
 */
class QuorumLeaderStepDownTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(2);

  /**
   * From the step-down to the first committed change. Ratis' default wait alone is 10 s; with one
   * election timeout (800 ms) the quorum is back once the restarted peer answers, about a second
   * after it started, more on a busy machine.
   */
  private static final long RECOVERY_LIMIT_MS = 7_000;

  @TempDir Path dir;

  @Test
  void shouldElectTheSteppedDownLeaderSoonWhenTheOnlyOtherLivePeerHasAShorterLog()
      throws Exception {
    try (QuorumFixture quorum = new QuorumFixture(dir, TIMEOUT, 1000).startAll()) {
      addColor(quorum, quorum.awaitLeader(Duration.ofSeconds(10)), "before");
      int behind = (quorum.awaitLeader(Duration.ofSeconds(10)) + 1) % QuorumFixture.PEERS;
      quorum.stop(behind);
      int alone = quorum.awaitLeader(Duration.ofSeconds(10));
      addColor(quorum, alone, "while-one-is-down"); // committed by the other two only
      int other = 3 - behind - alone;
      assertThat(quorum.member(alone).quorum().isLeader())
          .as("node %d leads before its last follower stops", alone)
          .isTrue();
      // Closing a member in this process takes seconds (gRPC channels shut down gracefully); the
      // leader steps down meanwhile, and the test goes on from there.
      Thread stopper = new Thread(() -> quorum.stop(other), "stop-node-" + other);
      stopper.start();
      long steppedDownAt = awaitStepDown(quorum, alone, Duration.ofSeconds(15));
      quorum.start(behind); // its log lacks the last change: only the old leader can win

      addColor(quorum, alone, "after");
      long recoveredMs = (System.nanoTime() - steppedDownAt) / 1_000_000;
      stopper.join(30_000);

      assertThat(recoveredMs)
          .as(
              "ms from node %d's step-down (no majority answered it) to the next commit, with the"
                  + " only other live peer behind it",
              alone)
          .isLessThan(RECOVERY_LIMIT_MS);
      assertThat(quorum.awaitLeader(Duration.ofSeconds(5))).isEqualTo(alone);
    }
  }

  /** Waits until {@code node} no longer leads; returns when it noticed (nanos). */
  private static long awaitStepDown(QuorumFixture quorum, int node, Duration limit)
      throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    while (quorum.member(node).quorum().isLeader()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("node " + node + " still leads alone after " + limit);
      }
      Thread.sleep(10);
    }
    return System.nanoTime();
  }

  /** AddColor through node {@code via}'s admin service, retried while the quorum has no leader. */
  private static void addColor(QuorumFixture quorum, int via, String name) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    try (AdminClient client = AdminClient.connect(quorum.admin(via), Duration.ofSeconds(10))) {
      while (true) {
        try {
          client.addColor(
              AddColorRequest.newBuilder()
                  .setName(name)
                  .setParent("global")
                  .setShards(1)
                  .setReplicationFactor(3)
                  .build());
          return;
        } catch (MetadataUnavailableException e) {
          if (System.nanoTime() > deadline) {
            throw e;
          }
          Thread.sleep(50);
        }
      }
    }
  }
}
