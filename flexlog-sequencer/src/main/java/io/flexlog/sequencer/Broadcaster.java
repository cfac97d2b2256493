package io.flexlog.sequencer;

import io.flexlog.core.protocol.OrderResponseDescriptor;
import io.flexlog.core.protocol.WatermarkDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;

/**
 * Encodes ORDER_RESPONSE and WATERMARK frames and writes them to replica connections. Each frame is
 * encoded once into a pooled buffer and written to every target as a retained duplicate (no
 * copies); writes are not flushed until {@link #flushDirty}, so a connection gets one flush (one
 * syscall) per event-loop turn.
 *
 * <p>Ordering: frames reach one connection in the order they are written here (Netty keeps a
 * channel's writes FIFO), which is what lets a watermark cover the responses written before it.
 *
 * <p>Threading: owned by the node's event loop.
 */
final class Broadcaster {
  private final ByteBufAllocator alloc;
  private final ReplicaRegistry registry;
  private final ArrayList<ReplicaLink> dirty = new ArrayList<>();
  private long watermarkStamp;

  Broadcaster(ByteBufAllocator alloc, ReplicaRegistry registry) {
    this.alloc = alloc;
    this.registry = registry;
  }

  ByteBufAllocator alloc() {
    return alloc;
  }

  /**
   * Writes, per shard of the role's batch, one ORDER_RESPONSE with the batch's assigned entries to
   * every registered replica of that shard; then one WATERMARK of the role to every connection
   * registered for a shard in the role's subtree. Entries without an SN are skipped.
   */
  void publish(OrderingRole role) {
    ColorBatch batch = role.batch();
    for (int k = 0; k < batch.activeSlotCount(); k++) {
      int slot = batch.activeSlot(k);
      ShardTargets targets = registry.targets(role.shardId(slot));
      if (hasLinks(targets)) {
        writeResponse(role.colorId(), targets, batch, slot);
      }
    }
    writeWatermark(role);
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
        ReplicaLink link = targets.link(p);
        if (link != null) {
          write(link, frame.retainedDuplicate());
        }
      }
    } finally {
      frame.release();
    }
  }

  private void writeWatermark(OrderingRole role) {
    long stamp = ++watermarkStamp;
    ByteBuf frame = WatermarkDescriptor.encode(alloc, role.colorId(), role.watermark());
    try {
      for (int slot = 0; slot < role.shardCount(); slot++) {
        ShardTargets targets = registry.targets(role.shardId(slot));
        for (int p = 0; p < targets.capacity(); p++) {
          ReplicaLink link = targets.link(p);
          if (link != null && link.claimWatermark(stamp)) {
            write(link, frame.retainedDuplicate());
          }
        }
      }
    } finally {
      frame.release();
    }
  }

  /** Writes the role's current watermark to one connection (after its HELLO). */
  void writeWatermark(ReplicaLink link, OrderingRole role) {
    write(link, WatermarkDescriptor.encode(alloc, role.colorId(), role.watermark()));
  }

  /** Writes a frame to one connection without flushing; takes ownership of {@code frame}. */
  void write(ReplicaLink link, ByteBuf frame) {
    // The void promise saves an allocation per write; a failed write then reaches the channel's
    // exceptionCaught, which closes that connection.
    link.channel().write(frame, link.channel().voidPromise());
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
}
