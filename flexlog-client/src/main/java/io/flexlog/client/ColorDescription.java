package io.flexlog.client;

import io.flexlog.core.model.Retention;
import java.util.List;
import java.util.Optional;

/**
 * A color as the cluster's metadata describes it ({@link FlexLogAdmin#describeColor}, {@link
 * FlexLogAdmin#listColors}).
 *
 * @param id the color's id on the wire
 * @param name its name
 * @param parent the parent's name; empty for the root color ({@code global})
 * @param sequencerNodeId the sequencer node hosting the color's ordering role
 * @param replicationFactor replicas per shard; 0 when no shard is attached to the color itself
 * @param shardIds the shards attached to this color (records of colors below it live on theirs)
 * @param retention its retention.ms and retention.bytes, {@link Retention#KEEP_ALL} when it keeps
 *     everything (docs/architecture.md#retention)
 */
public record ColorDescription(
    int id,
    String name,
    Optional<String> parent,
    int sequencerNodeId,
    int replicationFactor,
    List<Integer> shardIds,
    Retention retention) {
  public ColorDescription {
    shardIds = List.copyOf(shardIds);
  }
}
