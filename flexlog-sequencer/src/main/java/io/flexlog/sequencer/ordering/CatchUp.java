package io.flexlog.sequencer.ordering;

import io.flexlog.core.protocol.TopologyMarkDescriptor;

/**
 * What a replica that just registered (HELLO) must hear before anything else: for every color its
 * shards order or forward through this node, the join marks it may have missed and the current
 * watermark, so that a restarted replica's held reads and subscriptions can decide again.
 *
 * <p>Threading: owned by the node's event loop, like the {@link OrderingService} that calls it.
 */
final class CatchUp {
  private final OrderingTables tables;
  private final Broadcaster broadcaster;

  CatchUp(OrderingTables tables, Broadcaster broadcaster) {
    this.tables = tables;
    this.broadcaster = broadcaster;
  }

  /**
   * Writes the catch-up for a replica that registered {@code shardIds}: the watermark of every
   * color its shards use here, each behind the join marks it may have missed.
   *
   * @return whether anything was written (the caller then ends the turn to flush it)
   */
  boolean write(PeerLink link, int[] registered) {
    // Only the shards whose replicas this node serves (see Broadcaster#writeWatermark).
    int[] shardIds = java.util.Arrays.stream(registered).filter(tables::entersHere).toArray();
    boolean wrote = false;
    for (OrderingTables.HostedColor hosted : tables.hostedColors()) {
      if (coversAny(hosted.role, shardIds)) {
        JoinMarks marks = hosted.marks;
        for (int i = 0; i < marks.count(); i++) {
          if (coversOther(hosted.role, marks, i, shardIds)) {
            writeMark(link, hosted.role.colorId(), marks, i);
          }
        }
        broadcaster.writeWatermark(link, hosted.role.colorId(), hosted.role.catchUpWatermark());
        wrote = true;
      }
    }
    for (ForwardRoute route : tables.routes()) {
      long watermark = route.catchUpWatermark();
      if (watermark > 0 && coversAny(route, shardIds)) {
        // Slots are judged now: the route may have gained shards since the mark came down.
        JoinMarks marks = tables.marksVia(route.colorId(), route.exitColorId());
        for (int i = 0; i < marks.count(); i++) {
          if (coversAny(route, route.slotsBefore(marks.version(i)), shardIds)) {
            writeMark(link, route.colorId(), marks, i);
          }
        }
        broadcaster.writeWatermark(link, route.colorId(), watermark);
        wrote = true;
      }
    }
    return wrote;
  }

  // A join mark a (re)connected replica of a shard that was in the subtree before may have missed
  // (a restarted replica lost the marks it kept), written ahead of its catch-up watermark.
  private void writeMark(PeerLink link, int colorId, JoinMarks marks, int i) {
    broadcaster.write(
        link,
        TopologyMarkDescriptor.encode(
            broadcaster.alloc(), 0L, colorId, colorId, marks.version(i), marks.sn(i)));
  }

  // Whether the replica registers a shard of the role's subtree that did not join with mark i: a
  // shard that was there before, or one that joined later (it has nothing to learn from the mark,
  // and a subscriber that streams from it ignores it, but after a restart the order in which the
  // shards joined is not known beyond the mark's own).
  private static boolean coversOther(OrderingRole role, JoinMarks marks, int i, int[] shardIds) {
    for (int shardId : shardIds) {
      if (role.shardSlot(shardId) >= 0 && !marks.joined(i, shardId)) {
        return true;
      }
    }
    return false;
  }

  private static boolean coversAny(ShardSlots slots, int[] shardIds) {
    return coversAny(slots, slots.shardCount(), shardIds);
  }

  private static boolean coversAny(ShardSlots slots, int slotCount, int[] shardIds) {
    for (int slot = 0; slot < slotCount; slot++) {
      for (int shardId : shardIds) {
        if (slots.shardId(slot) == shardId) {
          return true;
        }
      }
    }
    return false;
  }
}
