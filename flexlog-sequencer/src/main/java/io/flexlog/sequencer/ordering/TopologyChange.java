package io.flexlog.sequencer.ordering;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import java.util.Optional;

/**
 * Which topology changes a running sequencer node can apply: a larger version that keeps every
 * color where it was (same parent, same sequencer node, since a role that moved could issue SNs
 * below ones its old node issued) unless the role moved by a failover, which comes with a larger
 * role epoch from the metadata quorum, and keeps every shard on its color; new colors, shards,
 * nodes and replica placements are fine. Also, the node must still be a sequencer node.
 */
public final class TopologyChange {
  private TopologyChange() {}

  /** True when {@code newer} is worth applying on top of {@code current}. */
  public static boolean isNewer(Topology current, Topology newer) {
    return newer.version() > current.version();
  }

  /**
   * @return null when {@code newer} can replace {@code current} on node {@code nodeId}, or what
   *     forbids it
   */
  public static String problem(Topology current, Topology newer, int nodeId) {
    NodeAddress self = newer.nodes().get(nodeId);
    if (self == null || self.kind() != NodeAddress.Kind.SEQUENCER) {
      return "node " + nodeId + " is not a sequencer node in topology version " + newer.version();
    }
    for (Color color : current.colors()) {
      Optional<Color> after = newer.color(color.id());
      if (after.isEmpty()) {
        return "color " + describe(color) + " is missing from topology version " + newer.version();
      }
      // A role moves only by a failover, which the metadata quorum commits with a larger epoch.
      boolean failover = after.get().roleEpoch() > color.roleEpoch();
      if (after.get().parentId() != color.parentId()
          || (after.get().sequencerId() != color.sequencerId() && !failover)) {
        return "color "
            + describe(color)
            + " moves from parent "
            + color.parentId()
            + " on sequencer node "
            + color.sequencerId()
            + " to parent "
            + after.get().parentId()
            + " on sequencer node "
            + after.get().sequencerId()
            + " in topology version "
            + newer.version()
            + "; colors cannot move";
      }
    }
    for (Shard shard : current.shards()) {
      Optional<Shard> after = newer.shard(shard.id());
      if (after.isEmpty() || after.get().colorId() != shard.colorId()) {
        return "shard "
            + shard.id()
            + " of color "
            + shard.colorId()
            + " is missing or moved in topology version "
            + newer.version();
      }
    }
    return null;
  }

  private static String describe(Color color) {
    return color.id() + " ('" + color.name() + "')";
  }
}
