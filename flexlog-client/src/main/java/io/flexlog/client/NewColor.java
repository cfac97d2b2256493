package io.flexlog.client;

import io.flexlog.core.model.Retention;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * A color to create with {@link FlexLogAdmin#createColor}: its name, its parent, the number of
 * shards attached to it and the replicas per shard, and optionally the sequencer node that hosts
 * its ordering role and its retention (docs/architecture.md#retention). The admin service checks
 * the values (a bad one fails the call with {@code InvalidArgumentException} naming it).
 *
 * <pre>{@code
 * NewColor orders = NewColor.of("orders", "global").shards(2).replicationFactor(3);
 * NewColor clicks = NewColor.of("clicks", "global").retentionMs(86_400_000);
 * }</pre>
 *
 * @param name 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit
 * @param parent the name of an existing color, e.g. {@code global}
 * @param shards shards attached to the new color, 1-256; 0 means the service's default (1)
 * @param replicationFactor replicas per shard, 1-16; 0 means the service's default (3)
 * @param sequencerNodeId the sequencer node to host the role; empty for the parent's node
 * @param retentionMs records older than this many ms are trimmed; -1 (the default) keeps them
 * @param retentionBytes each shard keeps about this many payload bytes of the color; -1 (the
 *     default) for no limit
 */
public record NewColor(
    String name,
    String parent,
    int shards,
    int replicationFactor,
    OptionalInt sequencerNodeId,
    long retentionMs,
    long retentionBytes) {
  public NewColor {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(parent, "parent");
    Objects.requireNonNull(sequencerNodeId, "sequencerNodeId");
  }

  /**
   * A color under {@code parent} with the service's defaults (one shard of three replicas, the
   * parent's sequencer node, no retention limit).
   */
  public static NewColor of(String name, String parent) {
    return new NewColor(name, parent, 0, 0, OptionalInt.empty(), Retention.KEEP, Retention.KEEP);
  }

  /** This color with {@code count} shards. */
  public NewColor shards(int count) {
    return new NewColor(
        name, parent, count, replicationFactor, sequencerNodeId, retentionMs, retentionBytes);
  }

  /** This color with {@code replicas} replicas per shard. */
  public NewColor replicationFactor(int replicas) {
    return new NewColor(
        name, parent, shards, replicas, sequencerNodeId, retentionMs, retentionBytes);
  }

  /** This color with its ordering role on sequencer node {@code nodeId}. */
  public NewColor sequencerNode(int nodeId) {
    return new NewColor(
        name,
        parent,
        shards,
        replicationFactor,
        OptionalInt.of(nodeId),
        retentionMs,
        retentionBytes);
  }

  /** This color with retention.ms {@code ms}: -1 keeps everything, > 0 trims older records. */
  public NewColor retentionMs(long ms) {
    return new NewColor(
        name, parent, shards, replicationFactor, sequencerNodeId, ms, retentionBytes);
  }

  /** This color with retention.bytes {@code bytes} per shard: -1 for no limit, or > 0. */
  public NewColor retentionBytes(long bytes) {
    return new NewColor(
        name, parent, shards, replicationFactor, sequencerNodeId, retentionMs, bytes);
  }
}
