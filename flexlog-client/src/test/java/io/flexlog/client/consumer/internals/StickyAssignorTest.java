package io.flexlog.client.consumer.internals;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.consumer.ColorShard;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StickyAssignorTest {
  private static GroupState.Member member(String id, String... colors) {
    return new GroupState.Member(id, 10_000, 0, List.of(colors));
  }

  private static Map<String, Long> counts(Map<ColorShard, String> assignment) {
    Map<String, Long> counts = new HashMap<>();
    assignment.values().forEach(m -> counts.merge(m, 1L, Long::sum));
    return counts;
  }

  @Test
  void shouldSplitShardsInRangesOnAFreshGroup() {
    Map<ColorShard, String> a =
        StickyAssignor.assign(
            List.of(member("a", "c"), member("b", "c"), member("x", "other")),
            Map.of("c", List.of(4, 1, 2, 3, 5)),
            Map.of());
    assertThat(a)
        .containsEntry(ColorShard.of("c", 1), "a")
        .containsEntry(ColorShard.of("c", 2), "a")
        .containsEntry(ColorShard.of("c", 3), "a")
        .containsEntry(ColorShard.of("c", 4), "b")
        .containsEntry(ColorShard.of("c", 5), "b");
  }

  @Test
  void shouldMoveOnlyTheDeadMembersShards() {
    List<GroupState.Member> four =
        List.of(member("a", "c"), member("b", "c"), member("d", "c"), member("e", "c"));
    List<Integer> eight = List.of(0, 1, 2, 3, 4, 5, 6, 7);
    Map<ColorShard, String> before = StickyAssignor.assign(four, Map.of("c", eight), Map.of());
    assertThat(counts(before).values()).containsOnly(2L);

    Map<ColorShard, GroupState.Owner> owners = new HashMap<>();
    before.forEach(
        (cs, m) -> {
          if (!m.equals("b")) {
            owners.put(cs, new GroupState.Owner(m, 1));
          }
        });
    Map<ColorShard, String> after =
        StickyAssignor.assign(
            List.of(four.get(0), four.get(2), four.get(3)), Map.of("c", eight), owners);
    assertThat(after).hasSize(8);
    owners.forEach((cs, o) -> assertThat(after.get(cs)).isEqualTo(o.member()));
    assertThat(counts(after).values()).containsExactlyInAnyOrder(3L, 3L, 2L);
  }
}
