package io.flexlog.core.protocol;

import java.util.List;

/**
 * A color as users see it (the admin service's {@code ColorInfo}), as the admin frames carry it
 * (CREATE_COLOR_RESPONSE, DESCRIBE_COLORS_RESPONSE, ALTER_COLOR_RESPONSE; layout in
 * docs/protocol.md#admin-frames).
 *
 * @param id the color's wire id
 * @param name its name
 * @param parent the parent's name, empty for the root color
 * @param sequencerNodeId the sequencer node hosting the color's ordering role
 * @param replicationFactor replicas per shard, 0 when the color has no shard of its own
 * @param shardIds the shards attached to this color (not those of colors below it)
 * @param retentionMs its retention.ms, -1 to keep everything (docs/architecture.md#retention)
 * @param retentionBytes its retention.bytes, -1 for no limit
 */
public record ColorEntry(
    int id,
    String name,
    String parent,
    int sequencerNodeId,
    int replicationFactor,
    List<Integer> shardIds,
    long retentionMs,
    long retentionBytes) {
  public ColorEntry {
    shardIds = List.copyOf(shardIds);
  }
}
