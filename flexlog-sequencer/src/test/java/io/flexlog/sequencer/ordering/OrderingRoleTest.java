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
