package io.flexlog.client;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * A color to create with {@link FlexLogAdmin#createColor}: its name, its parent, the number of
 * shards attached to it and the replicas per shard, and optionally the sequencer node that hosts
 * its ordering role. The admin service checks the values (a bad one fails the call with {@code
 * InvalidArgumentException} naming it).
 *
 * <pre>{@code
 * NewColor orders = NewColor.of("orders", "global").shards(2).replicationFactor(3);
 * }</pre>
 *
 * @param name 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit
 * @param parent the name of an existing color, e.g. {@code global}
 * @param shards shards attached to the new color, 1-256; 0 means the service's default (1)
 * @param replicationFactor replicas per shard, 1-16; 0 means the service's default (3)
 * @param sequencerNodeId the sequencer node to host the role; empty for the parent's node
 */
public record NewColor(
    String name, String parent, int shards, int replicationFactor, OptionalInt sequencerNodeId) {
  public NewColor {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(parent, "parent");
    Objects.requireNonNull(sequencerNodeId, "sequencerNodeId");
  }

  /** A color under {@code parent} with the service's defaults (one shard of three replicas). */
  public static NewColor of(String name, String parent) {
    return new NewColor(name, parent, 0, 0, OptionalInt.empty());
  }

  /** This color with {@code count} shards. */
  public NewColor shards(int count) {
    return new NewColor(name, parent, count, replicationFactor, sequencerNodeId);
  }

  /** This color with {@code replicas} replicas per shard. */
  public NewColor replicationFactor(int replicas) {
    return new NewColor(name, parent, shards, replicas, sequencerNodeId);
  }

  /** This color with its ordering role on sequencer node {@code nodeId}. */
  public NewColor sequencerNode(int nodeId) {
    return new NewColor(name, parent, shards, replicationFactor, OptionalInt.of(nodeId));
  }
}
