package io.flexlog.sequencer.ordering;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Topology;

/**
 * Why the {@link OrderingService} refuses an ORDER_REQUEST, as typed errors that name the problem
 * and where the request should go instead (docs/architecture.md#fencing).
 */
final class OrderRefusals {
  private OrderRefusals() {}

  /** A request for a color that is neither hosted nor forwarded from the shard here. */
  static Rejection unroutable(
      Topology topology, int nodeId, int colorId, int shardId, ShardTargets targets) {
    Color color = topology.color(colorId).orElse(null);
    if (color == null) {
      return new Rejection(ErrorCode.UNKNOWN_COLOR, "unknown color id " + colorId);
    }
    if (targets == null) {
      return new Rejection(ErrorCode.UNKNOWN_SHARD, "unknown shard id " + shardId);
    }
    if (!topology.isInSubtree(targets.shard().colorId(), colorId)) {
      return outsideSubtree(topology, shardId, colorId);
    }
    return new Rejection(
        ErrorCode.UNKNOWN_COLOR,
        "color "
            + OrderingService.describe(color)
            + " is ordered by sequencer node "
            + color.sequencerId()
            + ", not by node "
            + nodeId
            + ", and shard "
            + shardId
            + " is not attached to a color of node "
            + nodeId
            + ": send its order requests to the node of its color");
  }

  /** A request addressed to the leader of the shard's color, which this node is not. */
  static Rejection notShardLeader(Topology topology, int nodeId, ShardTargets targets) {
    Color shardColor = topology.color(targets.shard().colorId()).orElseThrow();
    return new Rejection(
        ErrorCode.UNKNOWN_COLOR,
        "shard "
            + targets.shard().id()
            + " belongs to color "
            + OrderingService.describe(shardColor)
            + ", whose role is led by sequencer node "
            + shardColor.sequencerId()
            + " in topology version "
            + topology.version()
            + " of node "
            + nodeId
            + ": send its order requests there");
  }

  static Rejection outsideSubtree(Topology topology, int shardId, int colorId) {
    String color = topology.color(colorId).map(OrderingService::describe).orElse("" + colorId);
    return new Rejection(
        ErrorCode.INVALID_ARGUMENT,
        "shard " + shardId + " is outside the subtree of color " + color);
  }
}
