package io.flexlog.sequencer.ordering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OrderingRoleTest {
  private static final Color GLOBAL = new Color(0, "global", Color.NO_PARENT, 0);
  private static final List<Shard> SHARDS =
      List.of(new Shard(7, 0, List.of(10, 11)), new Shard(9, 0, List.of(12)));

  private int nextEpoch = 5;
  private final List<Integer> advances = new ArrayList<>();

  private OrderingRole role(long maxCounter) {
    return new OrderingRole(
        GLOBAL,
        SHARDS,
        1024,
        4,
        maxCounter,
        () -> {
          advances.add(nextEpoch);
          return nextEpoch++;
        });
  }

  private static List<Long> assignedSns(OrderingRole role) {
    List<Long> sns = new ArrayList<>();
    for (int i = 0; i < role.batch().size(); i++) {
      sns.add(role.batch().sn(i));
    }
    return sns;
  }

  @Test
  void shouldAssignConsecutiveSnsInArrivalOrderStartingAtCounterOne() {
    OrderingRole role = role(Sn.MAX_COUNTER);
    assertThat(role.watermark()).isEqualTo(Sn.of(4, 0));

    role.offer(role.shardSlot(9), 1, 1);
    role.offer(role.shardSlot(7), 1, 2);
    role.offer(role.shardSlot(9), 1, 3);
    role.assignBatch();

    assertThat(assignedSns(role)).containsExactly(Sn.of(4, 1), Sn.of(4, 2), Sn.of(4, 3));
    assertThat(role.watermark()).isEqualTo(Sn.of(4, 3));
    ColorBatch batch = role.batch();
    assertThat(batch.activeSlotCount()).isEqualTo(2);
    assertThat(batch.entryCount(role.shardSlot(9))).isEqualTo(2);
    assertThat(batch.entryCount(role.shardSlot(7))).isEqualTo(1);
  }

  @Test
  void shouldReportPendingThenAssignedSnForARepeatedToken() {
    OrderingRole role = role(Sn.MAX_COUNTER);
    int slot = role.shardSlot(7);

    assertThat(role.offer(slot, 1, 1)).isEqualTo(OrderingRole.ACCEPTED);
    assertThat(role.offer(slot, 1, 1)).isEqualTo(OrderingRole.PENDING);
    role.assignBatch();
    role.clearBatch();

    assertThat(role.offer(slot, 1, 1)).isEqualTo(Sn.of(4, 1));
    assertThat(role.batch().isEmpty()).isTrue();
  }

  @Test
  void shouldMoveToTheNextDurableEpochWhenTheCounterWouldOverflow() {
    OrderingRole role = role(2);
    int slot = role.shardSlot(7);
    for (long t = 1; t <= 5; t++) {
      role.offer(slot, 3, t);
    }

    role.assignBatch();

    assertThat(assignedSns(role))
        .containsExactly(Sn.of(4, 1), Sn.of(4, 2), Sn.of(5, 1), Sn.of(5, 2), Sn.of(6, 1));
    assertThat(advances).containsExactly(5, 6);
    assertThat(role.epoch()).isEqualTo(6);
    assertThat(role.watermark()).isEqualTo(Sn.of(6, 1));
  }

  @Test
  void shouldForgetUnassignedTokensWhenTheEpochCannotBeAdvanced() {
    OrderingRole role =
        new OrderingRole(
            GLOBAL,
            SHARDS,
            1024,
            4,
            1,
            () -> {
              throw new IllegalStateException("disk gone");
            });
    int slot = role.shardSlot(7);
    role.offer(slot, 1, 1);
    role.offer(slot, 1, 2);

    assertThatThrownBy(role::assignBatch).hasMessage("disk gone");
    assertThat(assignedSns(role)).containsExactly(Sn.of(4, 1), 0L);
    role.abortBatch();

    assertThat(role.offer(slot, 1, 1)).isEqualTo(Sn.of(4, 1));
    assertThat(role.offer(slot, 1, 2)).isEqualTo(OrderingRole.ACCEPTED);
  }

  @Test
  void shouldForgetTheOldestTokensBeyondTheDedupWindow() {
    OrderingRole role = new OrderingRole(GLOBAL, SHARDS, 2, 4, Sn.MAX_COUNTER, () -> 5);
    int slot = role.shardSlot(7);
    for (long t = 1; t <= 3; t++) {
      role.offer(slot, 1, t);
    }
    role.assignBatch();
    role.clearBatch();

    assertThat(role.offer(slot, 1, 3)).isEqualTo(Sn.of(4, 3));
    assertThat(role.offer(slot, 1, 1)).isEqualTo(OrderingRole.ACCEPTED);
  }

  @Test
  void shouldNotKnowShardsOutsideTheSubtree() {
    assertThat(role(Sn.MAX_COUNTER).shardSlot(8)).isEqualTo(-1);
  }

  @Test
  void shouldGiveRangesConsecutiveSnsAfterTheTokensOfTheTurn() {
    OrderingRole role = role(Sn.MAX_COUNTER);
    role.offer(role.shardSlot(7), 1, 1);
    role.offerRange(3, 1, 11, 4);
    role.offerRange(5, 2, 12, 2);

    role.assignBatch();

    assertThat(assignedSns(role)).containsExactly(Sn.of(4, 1));
    assertThat(role.ranges().firstSn(0)).isEqualTo(Sn.of(4, 2));
    assertThat(role.ranges().firstSn(1)).isEqualTo(Sn.of(4, 6));
    assertThat(role.watermark()).isEqualTo(Sn.of(4, 7));
    role.clearBatch();
    assertThat(role.hasWork()).isFalse();
  }

  @Test
  void shouldStartARangeThatDoesNotFitInTheNextEpoch() {
    OrderingRole role = role(5);
    role.offerRange(3, 1, 1, 3);
    role.offerRange(3, 1, 2, 3);

    role.assignBatch();

    assertThat(role.ranges().firstSn(0)).isEqualTo(Sn.of(4, 1));
    assertThat(role.ranges().firstSn(1)).isEqualTo(Sn.of(5, 1));
    assertThat(advances).containsExactly(5);
  }

  // ---------------------------------------------------------------- leased epochs

  /** (color, epoch) pairs the role reported exhausted to its gate, in order. */
  private final List<String> exhaustedReports = new ArrayList<>();

  /** A role in epoch 4 from the metadata quorum, whose gate lets it issue in any epoch. */
  private OrderingRole leasedRole(long maxCounter) {
    OrderingRole role =
        new OrderingRole(
            GLOBAL.withRole(0, 4),
            SHARDS,
            1024,
            4,
            maxCounter,
            () -> {
              throw new AssertionError("a leased role must not take a node epoch");
            });
    role.gate(
        new IssueGate() {
          @Override
          public boolean mayIssue(int colorId, int epoch) {
            return true;
          }

          @Override
          public void epochExhausted(int colorId, int epoch) {
            exhaustedReports.add(colorId + "@" + epoch);
          }
        });
    return role;
  }

  private static List<Long> tokensOf(OrderingRole role) {
    List<Long> sequences = new ArrayList<>();
    for (int i = 0; i < role.batch().size(); i++) {
      sequences.add(role.batch().lo(i));
    }
    return sequences;
  }

  @Test
  void shouldHoldWhatALeasedEpochHasNoRoomForAndAskTheGateForANewEpoch() {
    OrderingRole role = leasedRole(5);
    int slot7 = role.shardSlot(7);
    int slot9 = role.shardSlot(9);
    for (long t = 1; t <= 7; t++) {
      role.offer(t % 2 == 0 ? slot9 : slot7, 1, t);
    }

    assertThat(role.assignBatch()).as("the epoch ran out").isFalse();

    assertThat(assignedSns(role))
        .as("what fits is issued in epoch 4, the rest has no SN")
        .containsExactly(Sn.of(4, 1), Sn.of(4, 2), Sn.of(4, 3), Sn.of(4, 4), Sn.of(4, 5), 0L, 0L);
    assertThat(exhaustedReports).containsExactly("0@4");
    assertThat(role.exhausted()).isTrue();
    role.clearBatch();

    assertThat(tokensOf(role))
        .as("held for the next epoch, in arrival order")
        .containsExactly(6L, 7L);
    assertThat(role.batch().entryCount(slot9)).isEqualTo(1);
    assertThat(role.batch().entryCount(slot7)).isEqualTo(1);
    assertThat(role.hasWork()).isTrue();
    assertThat(role.mayIssue()).as("nothing more is issued in epoch 4").isFalse();
    assertThat(exhaustedReports).as("and it asks again").containsExactly("0@4", "0@4");
    assertThat(role.offer(slot9, 1, 6))
        .as("a held token is still pending")
        .isEqualTo(OrderingRole.PENDING);
    assertThat(role.offer(slot7, 1, 5)).isEqualTo(Sn.of(4, 5));

    role.adoptRoleEpoch(5);

    assertThat(role.mayIssue()).isTrue();
    assertThat(role.assignBatch()).isTrue();
    assertThat(assignedSns(role)).containsExactly(Sn.of(5, 1), Sn.of(5, 2));
    role.clearBatch();
    assertThat(role.hasWork()).isFalse();
    assertThat(role.offer(slot7, 1, 7)).isEqualTo(Sn.of(5, 2));
  }

  @Test
  void shouldOrderABatchLargerThanAWholeEpochOneEpochAtATime() {
    OrderingRole role = leasedRole(5);
    int slot = role.shardSlot(7);
    for (long t = 1; t <= 12; t++) {
      role.offer(slot, 2, t);
    }
    List<Long> issued = new ArrayList<>();
    for (int epoch = 5; role.hasWork(); epoch++) {
      boolean complete = role.assignBatch();
      for (long sn : assignedSns(role)) {
        if (sn > 0) {
          issued.add(sn);
        }
      }
      role.clearBatch();
      assertThat(complete).isEqualTo(!role.hasWork());
      if (!complete) {
        role.adoptRoleEpoch(epoch);
      }
    }

    assertThat(issued)
        .containsExactly(
            Sn.of(4, 1),
            Sn.of(4, 2),
            Sn.of(4, 3),
            Sn.of(4, 4),
            Sn.of(4, 5),
            Sn.of(5, 1),
            Sn.of(5, 2),
            Sn.of(5, 3),
            Sn.of(5, 4),
            Sn.of(5, 5),
            Sn.of(6, 1),
            Sn.of(6, 2));
    assertThat(exhaustedReports).containsExactly("0@4", "0@5");
    for (long t = 1; t <= 12; t++) {
      assertThat(role.offer(slot, 2, t)).isEqualTo(issued.get((int) t - 1));
    }
  }

  @Test
  void shouldSkipTheRestOfALeasedEpochForARangeThatDoesNotFitAndIssueNothingMoreInIt() {
    OrderingRole role = leasedRole(5);
    role.offer(role.shardSlot(7), 1, 1);
    role.offerRange(3, 1, 11, 2);
    role.offerRange(3, 1, 12, 3);
    role.offerRange(5, 2, 13, 1);

    assertThat(role.assignBatch()).isFalse();

    assertThat(assignedSns(role)).containsExactly(Sn.of(4, 1));
    assertThat(role.ranges().size()).as("only the assigned range is answered").isEqualTo(1);
    assertThat(role.ranges().requestId(0)).isEqualTo(11);
    assertThat(role.ranges().firstSn(0)).isEqualTo(Sn.of(4, 2));
    assertThat(role.watermark()).as("4.4 and 4.5 are holes").isEqualTo(Sn.of(4, 5));
    role.clearBatch();
    role.offer(role.shardSlot(9), 1, 2);
    assertThat(role.mayIssue()).isFalse();

    role.adoptRoleEpoch(5);
    assertThat(role.assignBatch()).isTrue();

    assertThat(assignedSns(role)).containsExactly(Sn.of(5, 1));
    assertThat(role.ranges().size()).isEqualTo(2);
    assertThat(role.ranges().requestId(0)).as("held ranges keep their order").isEqualTo(12);
    assertThat(role.ranges().firstSn(0)).isEqualTo(Sn.of(5, 2));
    assertThat(role.ranges().requestId(1)).isEqualTo(13);
    assertThat(role.ranges().firstSn(1)).isEqualTo(Sn.of(5, 5));
    assertThat(role.ranges().totalCount()).isEqualTo(4);
  }

  @Test
  void shouldDropHeldRangesTheChildNoLongerAwaits() {
    OrderingRole role = leasedRole(5);
    role.offerRange(3, 1, 11, 5);
    role.assignBatch();
    role.clearBatch();
    role.offerRange(3, 1, 12, 2);
    role.offerRange(3, 2, 5, 1); // another incarnation of the child
    role.offerRange(4, 1, 7, 1); // another child
    assertThat(role.mayIssue()).as("epoch 4 is used up").isFalse();

    // Node 3 (incarnation 1) re-targeted request 12 to a new id: it awaits nothing below 13.
    assertThat(role.dropAbandonedRanges(3, 1, 13)).isEqualTo(1);
    role.offerRange(3, 1, 13, 2);
    role.adoptRoleEpoch(5);
    assertThat(role.assignBatch()).isTrue();

    assertThat(role.ranges().size()).isEqualTo(3);
    assertThat(role.ranges().requestId(0)).isEqualTo(5);
    assertThat(role.ranges().requestId(1)).isEqualTo(7);
    assertThat(role.ranges().requestId(2)).isEqualTo(13);
    assertThat(role.ranges().firstSn(2)).isEqualTo(Sn.of(5, 3));
  }

  @Test
  void shouldDropHeldTokensOfShardsWhoseColorLeftTheNode() {
    OrderingRole role = leasedRole(2);
    int slot7 = role.shardSlot(7);
    int slot9 = role.shardSlot(9);
    role.offer(slot7, 1, 1);
    role.offer(slot7, 1, 2);
    role.offer(slot9, 1, 3);
    role.offer(slot7, 1, 4);
    assertThat(role.assignBatch()).isFalse();
    role.clearBatch();
    role.offer(slot9, 1, 5);
    assertThat(tokensOf(role)).containsExactly(3L, 4L, 5L);

    // The color of shard 9 moved to another node while the role waited for a new epoch.
    assertThat(role.dropTokensOfShards(shardId -> shardId == 9)).isEqualTo(2);

    assertThat(tokensOf(role)).containsExactly(4L);
    assertThat(role.batch().entryCount(slot9)).isZero();
    assertThat(role.offer(slot9, 1, 3))
        .as("forgotten, not pending: a later request is ordered afresh")
        .isEqualTo(OrderingRole.ACCEPTED);
    role.adoptRoleEpoch(5);
    assertThat(role.assignBatch()).isTrue();
    assertThat(assignedSns(role)).containsExactly(Sn.of(5, 1), Sn.of(5, 2));
  }

  @Test
  void shouldRefuseARangeLargerThanAnEpoch() {
    OrderingRole role = role(5);

    assertThatThrownBy(() -> role.offerRange(3, 1, 1, 6))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("range of 6 SNs outside [1, 5]");
  }

  @Test
  void shouldTellTheObserverEverySnInIssueOrder() {
    OrderingRole role = role(Sn.MAX_COUNTER);
    List<String> seen = new ArrayList<>();
    role.observe((color, first, count) -> seen.add(Sn.describe(first) + "x" + count));
    role.offer(role.shardSlot(9), 1, 1);
    role.offerRange(3, 1, 1, 5);

    role.assignBatch();

    assertThat(seen).containsExactly("4.1x1", "4.2x5");
  }

  @Test
  void shouldServeShardsAddedByANewerTopology() {
    OrderingRole role = role(Sn.MAX_COUNTER);

    role.addShards(List.of(new Shard(7, 0, List.of(10)), new Shard(8, 0, List.of(12))));

    assertThat(role.shardCount()).isEqualTo(3);
    int slot = role.shardSlot(8);
    assertThat(slot).isEqualTo(2);
    role.offer(slot, 9, 9);
    role.assignBatch();
    assertThat(role.batch().entryCount(slot)).isEqualTo(1);
  }
}
