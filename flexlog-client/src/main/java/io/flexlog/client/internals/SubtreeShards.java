package io.flexlog.client.internals;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.netty.util.collection.IntObjectHashMap;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The shards in the subtree of every color of one topology, sorted by id, computed once when the
 * topology is applied so that an append picks its shard without building a list: each shard is
 * added to its own color and to every ancestor of it, which is {@link Topology#shardsInSubtree} for
 * all colors at once.
 *
 * <p>Immutable, so any thread may read it once it is published.
 */
final class SubtreeShards {
  private final Topology topology;
  private final IntObjectHashMap<List<Shard>> byColor;

  SubtreeShards(Topology topology) {
    this.topology = topology;
    List<Shard> shards = new ArrayList<>(topology.shards());
    shards.sort(Comparator.comparingInt(Shard::id));
    IntObjectHashMap<List<Shard>> lists = new IntObjectHashMap<>();
    for (Shard shard : shards) {
      Color color = topology.color(shard.colorId()).orElse(null);
      while (color != null) {
        List<Shard> list = lists.get(color.id());
        if (list == null) {
          list = new ArrayList<>();
          lists.put(color.id(), list);
        }
        list.add(shard);
        color = color.isRoot() ? null : topology.color(color.parentId()).orElse(null);
      }
    }
    this.byColor = new IntObjectHashMap<>(Math.max(1, lists.size()));
    for (IntObjectHashMap.PrimitiveEntry<List<Shard>> entry : lists.entries()) {
      byColor.put(entry.key(), List.copyOf(entry.value()));
    }
  }

  /** The topology these lists come from. */
  Topology topology() {
    return topology;
  }

  /** The shards that may hold records of a color, sorted by id; empty for an unknown color. */
  List<Shard> of(int colorId) {
    List<Shard> shards = byColor.get(colorId);
    return shards == null ? List.of() : shards;
  }
}
