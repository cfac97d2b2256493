package io.flexlog.client.consumer;

import io.flexlog.core.error.FlexLogException;

/**
 * A deserializer threw on a record. The consumer's position in {@link #colorShard()} stays at the
 * record, so the next poll fails again; {@code seek(colorShard(), sn() + 1)} skips it.
 */
public final class RecordDeserializationException extends FlexLogException {
  private final ColorShard colorShard;
  private final long sn;

  public RecordDeserializationException(ColorShard colorShard, long sn, Throwable cause) {
    super(
        "could not deserialize the record of color '"
            + colorShard.color()
            + "' at SN "
            + sn
            + (colorShard.isWholeColor() ? "" : " (shard " + colorShard.shard() + ")")
            + ": "
            + cause
            + "; seek to SN "
            + (sn + 1)
            + " to skip it",
        cause);
    this.colorShard = colorShard;
    this.sn = sn;
  }

  public ColorShard colorShard() {
    return colorShard;
  }

  public long sn() {
    return sn;
  }
}
