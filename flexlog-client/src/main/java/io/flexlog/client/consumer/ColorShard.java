package io.flexlog.client.consumer;

import io.flexlog.core.model.Color;
import java.util.Comparator;

/**
 * What a consumer reads and commits a position for: either one shard's records of a color (a group
 * member's unit of work, Kafka's partition), or the whole color in its total order ({@link
 * #WHOLE_COLOR}).
 *
 * @param color the color's name
 * @param shard a shard id in the color's subtree, or {@link #WHOLE_COLOR}
 */
public record ColorShard(String color, int shard) implements Comparable<ColorShard> {
  /** The shard of a whole-color read: every shard of the subtree, merged into the total order. */
  public static final int WHOLE_COLOR = -1;

  private static final Comparator<ColorShard> ORDER =
      Comparator.comparing(ColorShard::color).thenComparingInt(ColorShard::shard);

  public ColorShard {
    Color.validateName(color);
    if (shard < WHOLE_COLOR) {
      throw new IllegalArgumentException(
          "a shard id is >= 0 (or WHOLE_COLOR = -1), got " + shard + " for color '" + color + "'");
    }
  }

  /** The whole color, in its total order. */
  public static ColorShard wholeColor(String color) {
    return new ColorShard(color, WHOLE_COLOR);
  }

  /** One shard's records of a color, in SN order. */
  public static ColorShard of(String color, int shard) {
    return new ColorShard(color, shard);
  }

  public boolean isWholeColor() {
    return shard == WHOLE_COLOR;
  }

  @Override
  public int compareTo(ColorShard other) {
    return ORDER.compare(this, other);
  }

  @Override
  public String toString() {
    return isWholeColor() ? color : color + "/" + shard;
  }
}
