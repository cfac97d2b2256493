package io.flexlog.replica.storage.segment;

import io.flexlog.replica.storage.TrimPoints;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.agrona.collections.Int2IntHashMap;

/**
 * What a segment's footer records, built entry by entry in primitive arrays: the sparse index
 * (address to file offset) and, per color, the SN range and entry count. The writer builds one
 * while it writes; recovery rebuilds one while it scans and compares it with the footer.
 *
 * <p>Threading: built by one thread, then handed over (through a queue) and only read.
 */
final class SegmentSummary {
  private long[] indexAddresses = new long[16];
  private int[] indexOffsets = new int[16];
  private int indexCount;
  private int lastIndexedOffset = Integer.MIN_VALUE;

  private final Int2IntHashMap slotByColor = new Int2IntHashMap(-1);
  private int[] colorIds = new int[4];
  private long[] minSns = new long[4];
  private long[] maxSns = new long[4];
  private long[] colorEntries = new long[4];
  private int colorCount;

  private long entryCount;

  void add(long address, int fileOffset, int colorId, long sn) {
    if (fileOffset - (long) lastIndexedOffset >= SegmentDescriptor.INDEX_INTERVAL_BYTES) {
      if (indexCount == indexAddresses.length) {
        indexAddresses = Arrays.copyOf(indexAddresses, indexCount * 2);
        indexOffsets = Arrays.copyOf(indexOffsets, indexCount * 2);
      }
      indexAddresses[indexCount] = address;
      indexOffsets[indexCount++] = fileOffset;
      lastIndexedOffset = fileOffset;
    }
    int slot = slotByColor.get(colorId);
    if (slot < 0) {
      if (colorCount == colorIds.length) {
        colorIds = Arrays.copyOf(colorIds, colorCount * 2);
        minSns = Arrays.copyOf(minSns, colorCount * 2);
        maxSns = Arrays.copyOf(maxSns, colorCount * 2);
        colorEntries = Arrays.copyOf(colorEntries, colorCount * 2);
      }
      slot = colorCount++;
      slotByColor.put(colorId, slot);
      colorIds[slot] = colorId;
      minSns[slot] = sn;
      maxSns[slot] = sn;
    } else {
      minSns[slot] = Math.min(minSns[slot], sn);
      maxSns[slot] = Math.max(maxSns[slot], sn);
    }
    colorEntries[slot]++;
    entryCount++;
  }

  long entryCount() {
    return entryCount;
  }

  int indexSlots() {
    return indexCount;
  }

  int colorSlots() {
    return colorCount;
  }

  /** File offset of the last indexed entry at or before {@code address}, or -1. */
  int floorOffset(long address) {
    int at = Arrays.binarySearch(indexAddresses, 0, indexCount, address);
    if (at >= 0) {
      return indexOffsets[at];
    }
    int before = -at - 2;
    return before < 0 ? -1 : indexOffsets[before];
  }

  /** True when every entry is at or below its color's trim point (vacuously for no entries). */
  boolean allTrimmed(TrimPoints trims) {
    for (int i = 0; i < colorCount; i++) {
      if (maxSns[i] > trims.trimPoint(colorIds[i])) {
        return false;
      }
    }
    return true;
  }

  /** Writes the index and the color table (in slot order) at the buffer's position. */
  void writeTables(ByteBuffer out) {
    for (int i = 0; i < indexCount; i++) {
      out.putLong(indexAddresses[i]).putLong(indexOffsets[i]);
    }
    for (int i = 0; i < colorCount; i++) {
      out.putInt(colorIds[i]).putInt(0).putLong(minSns[i]).putLong(maxSns[i]);
      out.putLong(colorEntries[i]);
    }
  }

  /** Bytes {@link #writeTables} writes. */
  int tablesLength() {
    return indexCount * SegmentDescriptor.INDEX_SLOT_LENGTH
        + colorCount * SegmentDescriptor.COLOR_SLOT_LENGTH;
  }

  /** True when the tables at {@code at} in {@code file} are exactly this summary's. */
  boolean matchesTables(ByteBuffer file, int at) {
    for (int i = 0; i < indexCount; i++, at += SegmentDescriptor.INDEX_SLOT_LENGTH) {
      if (file.getLong(at + SegmentDescriptor.INDEX_ADDRESS_OFFSET) != indexAddresses[i]
          || file.getLong(at + SegmentDescriptor.INDEX_FILE_OFFSET_OFFSET) != indexOffsets[i]) {
        return false;
      }
    }
    for (int i = 0; i < colorCount; i++, at += SegmentDescriptor.COLOR_SLOT_LENGTH) {
      if (file.getInt(at + SegmentDescriptor.COLOR_ID_OFFSET) != colorIds[i]
          || file.getLong(at + SegmentDescriptor.COLOR_MIN_SN_OFFSET) != minSns[i]
          || file.getLong(at + SegmentDescriptor.COLOR_MAX_SN_OFFSET) != maxSns[i]
          || file.getLong(at + SegmentDescriptor.COLOR_ENTRIES_OFFSET) != colorEntries[i]) {
        return false;
      }
    }
    return true;
  }
}
