package io.flexlog.sequencer.ordering;

import io.flexlog.core.protocol.OrderResponseDescriptor;
import io.flexlog.core.protocol.TopologyMarkDescriptor;
import io.flexlog.core.protocol.TreeWatermarkDescriptor;
import io.flexlog.core.protocol.WatermarkDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.function.IntPredicate;

/**
 * Encodes the frames a sequencer sends down (ORDER_RESPONSE and WATERMARK to replicas,
 * TREE_WATERMARK to child nodes) and writes them to connections. A frame for several replicas is
 * encoded once into a pooled buffer and written to every target as a retained duplicate (no
 * copies); writes are not flushed until {@link #flushDirty}, so a connection gets one flush (one
 * syscall) per event-loop turn.
 *
 * <p>Ordering: frames reach one connection in the order they are written here (FIFO), which is what
 * lets a watermark cover the responses written before it.
 *
 * <p>Threading: owned by the node's event loop.
 */
final class Broadcaster {
  private static final int[] NO_SHARDS = new int[0];

  private final ByteBufAllocator alloc;
  private final ReplicaRegistry registry;
  private final ArrayList<PeerLink> dirty = new ArrayList<>();
  private long watermarkStamp;
  private final IntPredicate entersHere;

  /**
   * @param entersHere whether this node is the sequencer node of a shard's replicas (see {@link
   *     OrderingTables#entersHere}); watermarks go only to those
   */
  Broadcaster(ByteBufAllocator alloc, ReplicaRegistry registry, IntPredicate entersHere) {
    this.alloc = alloc;
    this.registry = registry;
    this.entersHere = entersHere;
  }

  ByteBufAllocator alloc() {
    return alloc;
  }

  /**
   * Writes, per shard slot of the batch, one ORDER_RESPONSE with the batch's assigned entries to
   * every registered replica of that shard. Entries without an SN are skipped.
   */
  void writeResponses(int colorId, ShardSlots slots, ColorBatch batch) {
    for (int k = 0; k < batch.activeSlotCount(); k++) {
      int slot = batch.activeSlot(k);
      ShardTargets targets = registry.targets(slots.shardId(slot));
      if (targets != null && hasLinks(targets)) {
        writeResponse(colorId, targets, batch, slot);
      }
    }
  }

  private void writeResponse(int colorId, ShardTargets targets, ColorBatch batch, int slot) {
    int count = 0;
    for (int j = 0; j < batch.entryCount(slot); j++) {
      if (batch.sn(batch.entry(slot, j)) > 0) {
        count++;
      }
    }
    if (count == 0) {
      return;
    }
    ByteBuf frame =
        OrderResponseDescriptor.encodeHeader(alloc, colorId, targets.shard().id(), count);
    try {
      for (int j = 0; j < batch.entryCount(slot); j++) {
        int e = batch.entry(slot, j);
        if (batch.sn(e) > 0) {
          OrderResponseDescriptor.writeEntry(frame, batch.hi(e), batch.lo(e), batch.sn(e));
        }
      }
      for (int p = 0; p < targets.capacity(); p++) {
        PeerLink link = targets.link(p);
        if (link != null) {
          write(link, frame.retainedDuplicate());
        }
      }
    } finally {
      frame.release();
    }
  }

  /**
   * Writes one WATERMARK of the color to every connection registered for one of the shards of
   * {@code slots} whose replicas this node serves, once per connection even when it serves several
   * of them. A replica still registered for a shard whose color left this node (a lost role, a
   * replica on an older topology) gets none: the SNs of that shard now come through the color's new
   * node, and a watermark from here would make it call them holes.
   */
  void writeWatermark(int colorId, long watermark, ShardSlots slots) {
    long stamp = ++watermarkStamp;
    ByteBuf frame = WatermarkDescriptor.encode(alloc, colorId, watermark);
    try {
      for (int slot = 0; slot < slots.shardCount(); slot++) {
        int shardId = slots.shardId(slot);
        if (!entersHere.test(shardId)) {
          continue;
        }
        ShardTargets targets = registry.targets(shardId);
        if (targets == null) {
          continue;
        }
        for (int p = 0; p < targets.capacity(); p++) {
          PeerLink link = targets.link(p);
          if (link != null && link.claimWatermark(stamp)) {
            write(link, frame.retainedDuplicate());
          }
        }
      }
    } finally {
      frame.release();
    }
  }

  /**
   * Writes one TOPOLOGY_MARK of the color to every connection registered for one of the first
   * {@code slotCount} shards of {@code slots} (those in the subtree before the change), once per
   * connection, like {@link #writeWatermark(int, long, ShardSlots)}: so it travels behind every
   * response and watermark written before it (docs/architecture.md#subscribe).
   */
  void writeMark(int colorId, long topologyVersion, long markSn, ShardSlots slots, int slotCount) {
    writeMark(colorId, topologyVersion, markSn, slots, slotCount, NO_SHARDS);
  }

  /**
   * Like {@link #writeMark(int, long, long, ShardSlots, int)} for every shard of {@code slots} but
   * those in {@code joinedShardIds} (the shards that joined with the mark, wherever their slots).
   */
  void writeMark(
      int colorId, long topologyVersion, long markSn, ShardSlots slots, int[] joinedShardIds) {
    writeMark(colorId, topologyVersion, markSn, slots, slots.shardCount(), joinedShardIds);
  }

  private void writeMark(
      int colorId,
      long topologyVersion,
      long markSn,
      ShardSlots slots,
      int slotCount,
      int[] skippedShardIds) {
    long stamp = ++watermarkStamp;
    ByteBuf frame =
        TopologyMarkDescriptor.encode(alloc, 0L, colorId, colorId, topologyVersion, markSn);
    try {
      for (int slot = 0; slot < slotCount; slot++) {
        if (contains(skippedShardIds, slots.shardId(slot))) {
          continue;
        }
        ShardTargets targets = registry.targets(slots.shardId(slot));
        if (targets == null) {
          continue;
        }
        for (int p = 0; p < targets.capacity(); p++) {
          PeerLink link = targets.link(p);
          if (link != null && link.claimWatermark(stamp)) {
            write(link, frame.retainedDuplicate());
          }
        }
      }
    } finally {
      frame.release();
    }
  }

  /** Writes a TOPOLOGY_MARK down the edge {@code viaColorId} to a child node's connection. */
  void writeTreeMark(
      PeerLink child, int colorId, int viaColorId, long topologyVersion, long markSn) {
    write(
        child,
        TopologyMarkDescriptor.encode(alloc, 0L, colorId, viaColorId, topologyVersion, markSn));
  }

  /** Writes a color's watermark to one replica connection (catch-up after its HELLO). */
  void writeWatermark(PeerLink link, int colorId, long watermark) {
    write(link, WatermarkDescriptor.encode(alloc, colorId, watermark));
  }

  /** Writes a TREE_WATERMARK down the edge {@code viaColorId} to a child node's connection. */
  void writeTreeWatermark(PeerLink child, int colorId, int viaColorId, long watermark) {
    write(child, TreeWatermarkDescriptor.encode(alloc, colorId, viaColorId, watermark));
  }

  /** Writes a frame to one connection without flushing; takes ownership of {@code frame}. */
  void write(PeerLink link, ByteBuf frame) {
    link.out().write(frame);
    if (link.markDirty()) {
      dirty.add(link);
    }
  }

  /** Flushes every connection written to since the last call, once each. */
  void flushDirty() {
    for (int i = 0; i < dirty.size(); i++) {
      dirty.get(i).flush();
    }
    dirty.clear();
  }

  private static boolean hasLinks(ShardTargets targets) {
    for (int p = 0; p < targets.capacity(); p++) {
      if (targets.link(p) != null) {
        return true;
      }
    }
    return false;
  }

  private static boolean contains(int[] ids, int id) {
    for (int x : ids) {
      if (x == id) {
        return true;
      }
    }
    return false;
  }
}
