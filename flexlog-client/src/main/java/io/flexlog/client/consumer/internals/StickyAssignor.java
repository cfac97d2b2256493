package io.flexlog.client.consumer.internals;

import io.flexlog.client.consumer.ColorShard;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The leader's assignment: per color, its shards (sorted by id) split among the members subscribed
 * to it (in join order) so that counts differ by at most one. A shard stays with its owner while
 * that owner is below its share (sticky, so a rebalance moves only what it must: cooperative); the
 * rest go in shard order to members below their share, which on a fresh group is range assignment.
 *
 * <p>Pure: the same inputs give the same output.
 */
public final class StickyAssignor {
  private StickyAssignor() {}

  /**
   * @param members the group's members in join order
   * @param shardsByColor the shard ids of each subscribed color's subtree, as the leader knows them
   * @param previous the current owners
   */
  public static Map<ColorShard, String> assign(
      List<GroupState.Member> members,
      Map<String, List<Integer>> shardsByColor,
      Map<ColorShard, GroupState.Owner> previous) {
    Map<ColorShard, String> result = new LinkedHashMap<>();
    shardsByColor.keySet().stream()
        .sorted()
        .forEach(color -> assignColor(color, shardsByColor.get(color), members, previous, result));
    return result;
  }

  private static void assignColor(
      String color,
      List<Integer> shardIds,
      List<GroupState.Member> members,
      Map<ColorShard, GroupState.Owner> previous,
      Map<ColorShard, String> result) {
    List<String> eligible = new ArrayList<>();
    for (GroupState.Member m : members) {
      if (m.colors().contains(color)) {
        eligible.add(m.id());
      }
    }
    if (eligible.isEmpty()) {
      return;
    }
    List<Integer> shards = shardIds.stream().sorted().toList();
    Map<String, Integer> quota = new HashMap<>();
    for (int i = 0; i < eligible.size(); i++) {
      quota.put(
          eligible.get(i),
          shards.size() / eligible.size() + (i < shards.size() % eligible.size() ? 1 : 0));
    }
    Map<String, Integer> taken = new HashMap<>();
    List<ColorShard> open = new ArrayList<>();
    for (int shard : shards) {
      ColorShard cs = new ColorShard(color, shard);
      GroupState.Owner owner = previous.get(cs);
      if (owner != null
          && quota.containsKey(owner.member())
          && taken.getOrDefault(owner.member(), 0) < quota.get(owner.member())) {
        result.put(cs, owner.member());
        taken.merge(owner.member(), 1, Integer::sum);
      } else {
        open.add(cs);
      }
    }
    int next = 0;
    for (ColorShard cs : open) {
      while (taken.getOrDefault(eligible.get(next), 0) >= quota.get(eligible.get(next))) {
        next++;
      }
      result.put(cs, eligible.get(next));
      taken.merge(eligible.get(next), 1, Integer::sum);
    }
  }
}
