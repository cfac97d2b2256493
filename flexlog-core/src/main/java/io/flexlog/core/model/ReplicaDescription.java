package io.flexlog.core.model;

import java.util.List;

/**
 * What a replica node reports about itself (REPLICA_STATUS_RESPONSE,
 * docs/protocol.md#replica_status-and-replica_status_response): its storage per tier and, for every
 * color it hosts a shard of, the color's trim point, the tail it knows, its records and the
 * retention it applies.
 *
 * @param nodeId the replica node
 * @param tiers records and bytes per storage tier, over all colors
 * @param colors one entry per color with a shard hosted on the node, in color id order
 */
public record ReplicaDescription(int nodeId, TierUsage tiers, List<ColorState> colors) {
  public ReplicaDescription {
    colors = List.copyOf(colors);
  }

  /**
   * One color on the replica.
   *
   * @param trimPoint every record at or below it is gone; 0 if never trimmed
   * @param tail the largest SN of the color the replica knows to be assigned
   * @param records records of the color above the trim point stored on the replica, all tiers
   * @param retention the color's retention as the replica's topology has it
   */
  public record ColorState(
      int colorId, long trimPoint, long tail, long records, Retention retention) {}
}
