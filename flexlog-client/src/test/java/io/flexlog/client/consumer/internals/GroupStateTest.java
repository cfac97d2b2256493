package io.flexlog.client.consumer.internals;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.consumer.ColorShard;
import io.flexlog.client.consumer.internals.GroupState.Outcome;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GroupStateTest {
  private static final ColorShard S1 = ColorShard.of("orders", 1);
  private static final ColorShard S2 = ColorShard.of("orders", 2);

  private final GroupState state = new GroupState();
  private long sn = 100;

  private Outcome apply(GroupRecord record) {
    // Through the byte layout, as members apply it.
    return state.apply(sn++, GroupRecordDescriptor.decode(GroupRecordDescriptor.encode(record)));
  }

  private long seq;

  private GroupRecord.Commit commit(
      String writer, boolean asMember, long generation, Map<ColorShard, Long> positions) {
    return new GroupRecord.Commit(writer, asMember, generation, ++seq, positions);
  }

  private void join(String member) {
    apply(new GroupRecord.Join(member, 10_000, List.of("orders")));
  }

  @Test
  void shouldStartANewGenerationOnEveryMembershipChangeAndMakeTheFirstMemberLeader() {
    join("a");
    join("b");
    assertThat(state.generation()).isEqualTo(2);
    assertThat(state.leader()).isEqualTo("a");
    assertThat(state.needsAssignment()).isTrue();
    join("b"); // the same join again is a heartbeat
    assertThat(state.generation()).isEqualTo(2);
    apply(new GroupRecord.Leave("a"));
    assertThat(state.generation()).isEqualTo(3);
    assertThat(state.leader()).isEqualTo("b");
  }

  @Test
  void shouldIgnoreAnAssignmentOfAnOldGeneration() {
    join("a");
    join("b");
    assertThat(apply(new GroupRecord.Assign(1, Map.of(S1, "a")))).isEqualTo(Outcome.IGNORED);
    assertThat(apply(new GroupRecord.Assign(2, Map.of(S1, "a", S2, "b"))))
        .isEqualTo(Outcome.APPLIED);
    assertThat(state.assignmentOf("b")).containsExactly(S2);
    assertThat(state.needsAssignment()).isFalse();
  }

  @Test
  void shouldRejectACommitForAShardTheMemberLostToARebalance() {
    join("a");
    apply(new GroupRecord.Assign(1, Map.of(S1, "a", S2, "a")));
    assertThat(apply(commit("a", true, 1, Map.of(S1, 10L)))).isEqualTo(Outcome.APPLIED);
    join("b");
    // Still the owner until the new assignment is in the log: accepted (cooperative).
    assertThat(apply(commit("a", true, 1, Map.of(S2, 20L)))).isEqualTo(Outcome.APPLIED);
    apply(new GroupRecord.Assign(2, Map.of(S1, "a", S2, "b")));
    assertThat(apply(commit("a", true, 2, Map.of(S2, 30L)))).isEqualTo(Outcome.REJECTED);
    assertThat(state.lastRejection()).contains("orders/2").contains("owned by b");
    assertThat(apply(commit("a", true, 2, Map.of(S1, 40L)))).isEqualTo(Outcome.APPLIED);
    assertThat(state.committed()).containsEntry(S1, 40L).containsEntry(S2, 20L);
  }

  @Test
  void shouldRejectAStaleCommitOfAShardThatCameBackToItsMember() {
    join("a");
    apply(new GroupRecord.Assign(1, Map.of(S1, "a")));
    join("b");
    apply(new GroupRecord.Assign(2, Map.of(S1, "b")));
    apply(new GroupRecord.Leave("b"));
    apply(new GroupRecord.Assign(3, Map.of(S1, "a")));
    // A commit 'a' made while it owned S1 in generation 1 arrives late: fenced.
    assertThat(apply(commit("a", true, 1, Map.of(S1, 5L)))).isEqualTo(Outcome.REJECTED);
    assertThat(apply(commit("a", true, 3, Map.of(S1, 6L)))).isEqualTo(Outcome.APPLIED);
  }

  @Test
  void shouldRejectCommitsOfARemovedMemberAndOfOutsidersForOwnedShards() {
    join("a");
    apply(new GroupRecord.Assign(1, Map.of(S1, "a")));
    assertThat(apply(commit("", false, -1, Map.of(S1, 1L)))).isEqualTo(Outcome.REJECTED);
    assertThat(apply(commit("", false, -1, Map.of(S2, 1L)))).isEqualTo(Outcome.APPLIED);
    apply(new GroupRecord.Leave("a"));
    assertThat(apply(commit("a", true, 1, Map.of(S1, 1L)))).isEqualTo(Outcome.REJECTED);
    assertThat(state.lastRejection()).contains("no longer in the group");
  }

  @Test
  void shouldKeepThePositionOfAWritersLaterCommitWhenAnEarlierOneLandsAfterIt() {
    join("a");
    apply(new GroupRecord.Assign(1, Map.of(S1, "a")));
    GroupRecord.Commit first = commit("a", true, 1, Map.of(S1, 10L));
    GroupRecord.Commit second = commit("a", true, 1, Map.of(S1, 20L));
    assertThat(apply(second)).isEqualTo(Outcome.APPLIED);
    assertThat(apply(first)).isEqualTo(Outcome.APPLIED);
    assertThat(state.committed()).containsEntry(S1, 20L);
    assertThat(apply(commit("a", true, 1, Map.of(S1, 5L))))
        .isEqualTo(Outcome.APPLIED); // a seek back
    assertThat(state.committed()).containsEntry(S1, 5L);
  }

  @Test
  void shouldExpelOnlyIfNoHeartbeatCameAfterTheOneNamed() {
    join("a");
    join("b");
    long bBeat = state.member("b").lastBeatSn();
    apply(new GroupRecord.Heartbeat("b"));
    assertThat(apply(new GroupRecord.Expel("b", bBeat))).isEqualTo(Outcome.IGNORED);
    assertThat(apply(new GroupRecord.Expel("b", state.member("b").lastBeatSn())))
        .isEqualTo(Outcome.APPLIED);
    assertThat(state.member("b")).isNull();
  }

  @Test
  void shouldAcceptAResetOnlyWithoutMembers() {
    join("a");
    assertThat(apply(new GroupRecord.Reset(Map.of(S1, 0L)))).isEqualTo(Outcome.REJECTED);
    apply(new GroupRecord.Leave("a"));
    assertThat(apply(new GroupRecord.Reset(Map.of(S1, 7L)))).isEqualTo(Outcome.APPLIED);
    assertThat(state.committed()).containsEntry(S1, 7L);
  }

  @Test
  void shouldRestoreFromACheckpointWhenOvertakenByTrimAndIgnoreAStaleOne() {
    join("a");
    apply(new GroupRecord.Assign(1, Map.of(S1, "a")));
    apply(commit("a", true, 1, Map.of(S1, 9L)));
    long basedOn = state.lastAppliedSn();
    GroupState.Snapshot snapshot = state.snapshot();
    apply(commit("a", true, 1, Map.of(S1, 11L))); // lands between: checkpoint invalid
    assertThat(apply(new GroupRecord.Checkpoint(basedOn, snapshot))).isEqualTo(Outcome.IGNORED);
    assertThat(state.committed()).containsEntry(S1, 11L);

    // A reader that starts after the trim sees the checkpoint first.
    GroupState fresh = new GroupState();
    fresh.apply(500, new GroupRecord.Checkpoint(basedOn, snapshot));
    assertThat(fresh.committed()).containsEntry(S1, 9L);
    assertThat(fresh.assignmentOf("a")).containsExactly(S1);
    assertThat(fresh.generation()).isEqualTo(1);
    assertThat(fresh.appliedSinceCheckpoint()).isZero();
  }
}
