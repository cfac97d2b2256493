package io.flexlog.replica.storage.chunk;

import io.flexlog.replica.storage.StorageException;
import io.flexlog.replica.storage.TrimPoints;
import org.agrona.collections.Int2IntHashMap;

/**
 * The durable per-color trim points of one log, kept in a {@link TrimTableDescriptor} region of
 * durable memory (llpl root block or mapped file) with an in-memory mirror for lookups.
 *
 * <p>Threading: owned by the log's owner thread; {@link #snapshot()} hands an immutable copy to
 * other threads.
 */
final class TrimTable {
  private final ChunkMemory region;
  private final Int2IntHashMap slotByColor = new Int2IntHashMap(-1);
  private final int[] slotColor = new int[TrimTableDescriptor.MAX_SLOTS];
  private final long[] slotSn = new long[TrimTableDescriptor.MAX_SLOTS];
  private int used;
  private TrimPoints snapshot = TrimPoints.NONE;

  private TrimTable(ChunkMemory region) {
    this.region = region;
  }

  /** Writes an empty table (no trims) and flushes it. */
  static void format(ChunkMemory region) {
    region.zero(0, TrimTableDescriptor.LENGTH);
    region.putLong(TrimTableDescriptor.MAGIC_OFFSET, TrimTableDescriptor.MAGIC);
    region.putInt(TrimTableDescriptor.VERSION_OFFSET, TrimTableDescriptor.VERSION);
    region.putInt(TrimTableDescriptor.SLOTS_USED_OFFSET, 0);
    region.flush(0, TrimTableDescriptor.LENGTH);
  }

  /**
   * Reads the table in {@code region}.
   *
   * @param where names the region in error messages
   * @throws StorageException when the region is not a trim table of this version
   */
  static TrimTable open(ChunkMemory region, String where) {
    long magic = region.getLong(TrimTableDescriptor.MAGIC_OFFSET);
    int version = region.getInt(TrimTableDescriptor.VERSION_OFFSET);
    int used = region.getInt(TrimTableDescriptor.SLOTS_USED_OFFSET);
    if (magic != TrimTableDescriptor.MAGIC) {
      throw new StorageException(
          where + " is not a FlexLog trim table (magic 0x" + Long.toHexString(magic) + ")");
    }
    if (version != TrimTableDescriptor.VERSION) {
      throw new StorageException(
          where
              + " has trim table version "
              + version
              + ", this build reads "
              + TrimTableDescriptor.VERSION);
    }
    if (used < 0 || used > TrimTableDescriptor.MAX_SLOTS) {
      throw new StorageException(where + " says " + used + " trim slots are in use");
    }
    TrimTable table = new TrimTable(region);
    for (int slot = 0; slot < used; slot++) {
      int at = TrimTableDescriptor.slotOffset(slot);
      table.slotColor[slot] = region.getInt(at + TrimTableDescriptor.SLOT_COLOR_OFFSET);
      table.slotSn[slot] = region.getLong(at + TrimTableDescriptor.SLOT_SN_OFFSET);
      table.slotByColor.put(table.slotColor[slot], slot);
    }
    table.used = used;
    table.snapshot = TrimPoints.of(table.slotColor, table.slotSn, used);
    return table;
  }

  long trimPoint(int colorId) {
    int slot = slotByColor.get(colorId);
    return slot < 0 ? 0L : slotSn[slot];
  }

  /** True when a committed entry is at or below its color's trim point; pending ones never are. */
  boolean isTrimmed(int colorId, long sn) {
    return sn != 0 && sn <= trimPoint(colorId);
  }

  /**
   * Raises the color's trim point to {@code sn}, durably before it returns.
   *
   * @return false if the trim point was already at or above {@code sn} (nothing changed)
   * @throws StorageException when a new color does not fit in the table
   */
  boolean raise(int colorId, long sn) {
    int slot = slotByColor.get(colorId);
    if (slot >= 0) {
      if (sn <= slotSn[slot]) {
        return false;
      }
      int at = TrimTableDescriptor.slotOffset(slot) + TrimTableDescriptor.SLOT_SN_OFFSET;
      region.putLong(at, sn);
      region.flush(at, Long.BYTES);
      slotSn[slot] = sn;
    } else {
      if (sn <= 0) {
        return false;
      }
      if (used == TrimTableDescriptor.MAX_SLOTS) {
        throw new StorageException(
            "trim table full: "
                + TrimTableDescriptor.MAX_SLOTS
                + " colors already have trim points, cannot trim color "
                + colorId);
      }
      slot = used;
      int at = TrimTableDescriptor.slotOffset(slot);
      region.putInt(at + TrimTableDescriptor.SLOT_COLOR_OFFSET, colorId);
      region.putLong(at + TrimTableDescriptor.SLOT_SN_OFFSET, sn);
      region.flush(at, TrimTableDescriptor.SLOT_LENGTH);
      // The slot is durable before the count that makes it part of the table.
      region.putInt(TrimTableDescriptor.SLOTS_USED_OFFSET, used + 1);
      region.flush(TrimTableDescriptor.SLOTS_USED_OFFSET, Integer.BYTES);
      slotColor[slot] = colorId;
      slotSn[slot] = sn;
      slotByColor.put(colorId, slot);
      used++;
    }
    snapshot = TrimPoints.of(slotColor, slotSn, used);
    return true;
  }

  /** An immutable copy, for other threads. */
  TrimPoints snapshot() {
    return snapshot;
  }
}
