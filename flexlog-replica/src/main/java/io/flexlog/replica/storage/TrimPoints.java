package io.flexlog.replica.storage;

import java.util.Arrays;

/**
 * An immutable snapshot of the trim points of every trimmed color, safe to hand to another thread
 * (the tiering thread uses one to skip entries that were dead when it started).
 */
public final class TrimPoints {
  /** No color trimmed. */
  public static final TrimPoints NONE = new TrimPoints(new int[0], new long[0]);

  private final int[] colors;
  private final long[] sns;

  private TrimPoints(int[] sortedColors, long[] sns) {
    this.colors = sortedColors;
    this.sns = sns;
  }

  /** A snapshot of {@code count} (color, trim SN) pairs, in any order, colors distinct. */
  public static TrimPoints of(int[] colorIds, long[] trimSns, int count) {
    long[] keyed = new long[count];
    for (int i = 0; i < count; i++) {
      keyed[i] = ((long) colorIds[i] << 32) | i;
    }
    Arrays.sort(keyed);
    int[] colors = new int[count];
    long[] sns = new long[count];
    for (int i = 0; i < count; i++) {
      int slot = (int) keyed[i];
      colors[i] = colorIds[slot];
      sns[i] = trimSns[slot];
    }
    return new TrimPoints(colors, sns);
  }

  /** The color's trim point, 0 if it was never trimmed. */
  public long trimPoint(int colorId) {
    int at = Arrays.binarySearch(colors, colorId);
    return at >= 0 ? sns[at] : 0L;
  }

  /**
   * True when a committed entry of this color and SN is dead. Pending entries ({@code sn == 0})
   * never are.
   */
  public boolean isTrimmed(int colorId, long sn) {
    return sn != 0 && sn <= trimPoint(colorId);
  }
}
