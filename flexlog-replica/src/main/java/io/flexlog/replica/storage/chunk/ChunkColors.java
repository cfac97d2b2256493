package io.flexlog.replica.storage.chunk;

/**
 * For each chunk, the largest committed SN of each color it holds, so that a trim can tell whether
 * every entry of a chunk is dead without reading the chunk. Up to {@link #PER_CHUNK} colors per
 * chunk in flat primitive arrays; a chunk with more colors is marked as overflowing and is never
 * freed by trim alone (tiering still frees it).
 *
 * <p>Threading: owned by the log's owner thread.
 */
final class ChunkColors {
  static final int PER_CHUNK = 8;
  private static final byte OVERFLOW = PER_CHUNK + 1;

  private final int[] colorIds;
  private final long[] maxSns;
  private final byte[] counts;

  ChunkColors(int chunkCount) {
    colorIds = new int[chunkCount * PER_CHUNK];
    maxSns = new long[chunkCount * PER_CHUNK];
    counts = new byte[chunkCount];
  }

  void reset(int chunk) {
    counts[chunk] = 0;
  }

  /** Notes a committed entry of {@code colorId} with {@code sn} in {@code chunk}. */
  void record(int chunk, int colorId, long sn) {
    int count = counts[chunk];
    if (count == OVERFLOW) {
      return;
    }
    int base = chunk * PER_CHUNK;
    for (int i = 0; i < count; i++) {
      if (colorIds[base + i] == colorId) {
        if (sn > maxSns[base + i]) {
          maxSns[base + i] = sn;
        }
        return;
      }
    }
    if (count == PER_CHUNK) {
      counts[chunk] = OVERFLOW;
      return;
    }
    colorIds[base + count] = colorId;
    maxSns[base + count] = sn;
    counts[chunk] = (byte) (count + 1);
  }

  /**
   * True when every committed entry recorded for the chunk is at or below its color's trim point.
   */
  boolean allTrimmed(int chunk, TrimTable trims) {
    int count = counts[chunk];
    if (count == OVERFLOW) {
      return false;
    }
    int base = chunk * PER_CHUNK;
    for (int i = 0; i < count; i++) {
      if (maxSns[base + i] > trims.trimPoint(colorIds[base + i])) {
        return false;
      }
    }
    return true;
  }
}
