package io.flexlog.server.control;

import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Retention;

/**
 * What AddColor asks for (docs/architecture.md#addcolor-and-topology-distribution).
 *
 * @param name the new color's name
 * @param parent the name of an existing color
 * @param shards shards attached to the new color; 0 means {@value #DEFAULT_SHARDS}
 * @param replicationFactor replicas per shard; 0 means {@value #DEFAULT_REPLICATION_FACTOR}
 * @param sequencerNodeId the sequencer node to host the color's role, or null for the parent's
 * @param retention the color's retention (docs/architecture.md#retention), or null when not given
 *     (a new color then keeps everything, an existing one is not compared on it)
 */
public record ColorSpec(
    String name,
    String parent,
    int shards,
    int replicationFactor,
    Integer sequencerNodeId,
    Retention retention) {
  public static final int DEFAULT_SHARDS = 1;
  public static final int DEFAULT_REPLICATION_FACTOR = 3;
  public static final int MAX_SHARDS = 256;

  /** The client tracks acknowledgements of one append in an int bit mask. */
  public static final int MAX_REPLICATION_FACTOR = 16;

  /** A spec that does not name a retention. */
  public ColorSpec(
      String name, String parent, int shards, int replicationFactor, Integer sequencerNodeId) {
    this(name, parent, shards, replicationFactor, sequencerNodeId, null);
  }

  /** The retention a new color gets: the one asked for, or {@link Retention#KEEP_ALL}. */
  public Retention retentionOrDefault() {
    return retention == null ? Retention.KEEP_ALL : retention;
  }

  /**
   * This spec with defaults filled in, checked.
   *
   * @throws InvalidArgumentException naming the bad field
   */
  public ColorSpec validated() {
    try {
      Color.validateName(name);
    } catch (IllegalArgumentException e) {
      throw new InvalidArgumentException(e.getMessage());
    }
    if (parent == null || parent.isBlank()) {
      throw new InvalidArgumentException(
          "color '"
              + name
              + "': parent is required (the name of an existing color, e.g. 'global')");
    }
    int s = shards == 0 ? DEFAULT_SHARDS : shards;
    if (s < 1 || s > MAX_SHARDS) {
      throw new InvalidArgumentException(
          "color '" + name + "': shards must be in [1, " + MAX_SHARDS + "], got " + shards);
    }
    int r = replicationFactor == 0 ? DEFAULT_REPLICATION_FACTOR : replicationFactor;
    if (r < 1 || r > MAX_REPLICATION_FACTOR) {
      throw new InvalidArgumentException(
          "color '"
              + name
              + "': replication factor must be in [1, "
              + MAX_REPLICATION_FACTOR
              + "], got "
              + replicationFactor);
    }
    return new ColorSpec(name, parent, s, r, sequencerNodeId, retention);
  }
}
