package io.flexlog.server.control.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.sequencer.ordering.JoinMarkStore.Mark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link QuorumJoinMarks}: a role's join marks saved through the metadata quorum reach every
 * member's copy (the backup that takes the role over loads them there), survive snapshots and a
 * restart of the whole quorum, and merge by version (docs/architecture.md#join-marks).
 */
class QuorumJoinMarksTest {
  @TempDir Path dir;

  @Test
  void shouldGiveEveryMemberTheMarksAndKeepThemAcrossASnapshotAndAFullRestart() throws Exception {
    try (QuorumFixture quorum = new QuorumFixture(dir, Duration.ofSeconds(10), 3).startAll();
        QuorumJoinMarks leader = new QuorumJoinMarks(0);
        QuorumJoinMarks backup = new QuorumJoinMarks(1)) {
      int raftLeader = quorum.awaitLeader(Duration.ofSeconds(10));
      leader.attach(quorum.member(0).quorum());
      backup.attach(quorum.member(1).quorum());
      Mark first = new Mark(2, 7L << 32 | 3, List.of(4));
      Mark second = new Mark(5, 8L << 32 | 1, List.of(6, 7));
      leader.save(0, List.of(first)).get(10, TimeUnit.SECONDS);
      // A later save of the same role names every mark it keeps; an older one is merged, not lost.
      leader.save(0, List.of(second)).get(10, TimeUnit.SECONDS);
      leader.save(1, List.of(new Mark(5, 9, List.of(6)))).get(10, TimeUnit.SECONDS);

      await(() -> backup.load(0), List.of(first, second));
      await(() -> backup.load(1), List.of(new Mark(5, 9, List.of(6))));
      assertThat(backup.load(2)).isEmpty();
      awaitSnapshot(quorum.storage(raftLeader));

      for (int i = 0; i < QuorumFixture.PEERS; i++) {
        quorum.stop(i);
      }
      quorum.startAll();
      quorum.awaitLeader(Duration.ofSeconds(10));
      try (QuorumJoinMarks restarted = new QuorumJoinMarks(2)) {
        restarted.attach(quorum.member(2).quorum());
        await(() -> restarted.load(0), List.of(first, second));
      }
    }
  }

  @Test
  void shouldHoldASaveUntilTheQuorumIsAttached() throws Exception {
    try (QuorumFixture quorum = new QuorumFixture(dir, Duration.ofSeconds(10), 1000).startAll();
        QuorumJoinMarks marks = new QuorumJoinMarks(0)) {
      quorum.awaitLeader(Duration.ofSeconds(10));
      var saving = marks.save(0, List.of(new Mark(2, 3, List.of())));
      assertThat(marks.load(0)).isEmpty();
      Thread.sleep(100);
      assertThat(saving).isNotDone();
      marks.attach(quorum.member(0).quorum());
      saving.get(10, TimeUnit.SECONDS);
      await(() -> marks.load(0), List.of(new Mark(2, 3, List.of())));
    }
  }

  private static void await(Supplier<List<Mark>> loaded, List<Mark> expected)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!loaded.get().equals(expected) && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(loaded.get()).isEqualTo(expected);
  }

  private static void awaitSnapshot(Path storage) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      try (Stream<Path> files = Files.walk(storage)) {
        if (files.anyMatch(p -> p.getFileName().toString().matches("snapshot\\.\\d+_\\d+"))) {
          return;
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no snapshot under " + storage);
  }
}
