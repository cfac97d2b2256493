package io.flexlog.core.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The cluster as clients and nodes see it: nodes, the color tree and the shards attached to colors.
 * Immutable; a change produces a new topology with a larger {@link #version()}.
 */
public final class Topology {
  private final long version;
  private final Map<Integer, NodeAddress> nodes;
  private final Map<Integer, Color> colorsById;
  private final Map<String, Color> colorsByName;
  private final Map<Integer, Shard> shards;

  public Topology(long version, List<NodeAddress> nodes, List<Color> colors, List<Shard> shards) {
    this.version = version;
    this.nodes = index(nodes, NodeAddress::id, "node");
    this.colorsById = index(colors, Color::id, "color");
    Map<String, Color> byName = new HashMap<>();
    for (Color color : colors) {
      if (byName.put(color.name(), color) != null) {
        throw new IllegalArgumentException("duplicate color name: " + color.name());
      }
    }
    this.colorsByName = Collections.unmodifiableMap(byName);
    this.shards = index(shards, Shard::id, "shard");
    validate();
  }

  private static <T> Map<Integer, T> index(
      List<T> items, java.util.function.ToIntFunction<T> id, String what) {
    Map<Integer, T> map = new LinkedHashMap<>();
    for (T item : items) {
      if (map.put(id.applyAsInt(item), item) != null) {
        throw new IllegalArgumentException("duplicate " + what + " id: " + id.applyAsInt(item));
      }
    }
    return Collections.unmodifiableMap(map);
  }

  private void validate() {
    for (Color color : colorsById.values()) {
      if (!color.isRoot() && !colorsById.containsKey(color.parentId())) {
        throw new IllegalArgumentException(
            "color '" + color.name() + "' has unknown parent id " + color.parentId());
      }
      NodeAddress sequencer = nodes.get(color.sequencerId());
      if (sequencer == null || sequencer.kind() != NodeAddress.Kind.SEQUENCER) {
        throw new IllegalArgumentException(
            "color '" + color.name() + "' is placed on unknown sequencer " + color.sequencerId());
      }
    }
    for (Color color : colorsById.values()) {
      Color ancestor = color;
      for (int depth = 0; !ancestor.isRoot(); depth++) {
        if (depth == colorsById.size()) {
          throw new IllegalArgumentException(
              "color '" + color.name() + "' is its own ancestor: the color tree has a cycle");
        }
        ancestor = colorsById.get(ancestor.parentId());
      }
    }
    for (Shard shard : shards.values()) {
      if (!colorsById.containsKey(shard.colorId())) {
        throw new IllegalArgumentException(
            "shard " + shard.id() + " is attached to unknown color id " + shard.colorId());
      }
      for (int replica : shard.replicaNodeIds()) {
        NodeAddress node = nodes.get(replica);
        if (node == null || node.kind() != NodeAddress.Kind.REPLICA) {
          throw new IllegalArgumentException(
              "shard " + shard.id() + " is placed on unknown replica node " + replica);
        }
      }
    }
  }

  public long version() {
    return version;
  }

  public Map<Integer, NodeAddress> nodes() {
    return nodes;
  }

  public List<Color> colors() {
    return List.copyOf(colorsById.values());
  }

  public List<Shard> shards() {
    return List.copyOf(shards.values());
  }

  public Optional<Color> color(String name) {
    return Optional.ofNullable(colorsByName.get(name));
  }

  public Optional<Color> color(int id) {
    return Optional.ofNullable(colorsById.get(id));
  }

  public Optional<Shard> shard(int id) {
    return Optional.ofNullable(shards.get(id));
  }

  public NodeAddress node(int id) {
    NodeAddress node = nodes.get(id);
    if (node == null) {
      throw new IllegalArgumentException("unknown node id " + id);
    }
    return node;
  }

  /** True when {@code colorId} is {@code ancestorId} or lies below it in the color tree. */
  public boolean isInSubtree(int colorId, int ancestorId) {
    Color color = colorsById.get(colorId);
    while (color != null) {
      if (color.id() == ancestorId) {
        return true;
      }
      color = color.isRoot() ? null : colorsById.get(color.parentId());
    }
    return false;
  }

  /** The shards that may hold records of {@code colorId}: those attached in its subtree. */
  public List<Shard> shardsInSubtree(int colorId) {
    List<Shard> result = new ArrayList<>();
    for (Shard shard : shards.values()) {
      if (isInSubtree(shard.colorId(), colorId)) {
        result.add(shard);
      }
    }
    return result;
  }

  /** The shards that place a replica on replica node {@code nodeId}. */
  public List<Shard> shardsOnReplica(int nodeId) {
    List<Shard> result = new ArrayList<>();
    for (Shard shard : shards.values()) {
      if (shard.replicaNodeIds().contains(nodeId)) {
        result.add(shard);
      }
    }
    return result;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Topology t
        && version == t.version
        && nodes.equals(t.nodes)
        && colorsById.equals(t.colorsById)
        && shards.equals(t.shards);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(version) * 31 + shards.hashCode();
  }

  @Override
  public String toString() {
    return "Topology{version="
        + version
        + ", nodes="
        + nodes.values()
        + ", colors="
        + colorsById.values()
        + ", shards="
        + shards.values()
        + '}';
  }
}
