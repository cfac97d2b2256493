package io.flexlog.core.model;

/**
 * How long a color keeps its records, in the manner of Kafka's {@code retention.ms} and {@code
 * retention.bytes} (docs/architecture.md#retention). Either limit may be {@link #KEEP} (-1, no
 * limit); with both at -1 (the default, {@link #KEEP_ALL}) records stay until an explicit trim.
 *
 * @param ms records older than this many milliseconds are trimmed, -1 for no time limit
 * @param bytes a shard keeps at most about this many payload bytes of the color, -1 for no limit
 */
public record Retention(long ms, long bytes) {
  /** The value of a limit that keeps everything. */
  public static final long KEEP = -1L;

  /** No limit: records stay until an explicit trim. */
  public static final Retention KEEP_ALL = new Retention(KEEP, KEEP);

  public Retention {
    check("retention.ms", ms);
    check("retention.bytes", bytes);
  }

  /**
   * Throws {@link IllegalArgumentException} naming the setting when {@code value} is neither -1 nor
   * positive.
   */
  public static void check(String setting, long value) {
    if (value != KEEP && value <= 0) {
      throw new IllegalArgumentException(
          setting + " must be -1 (keep everything) or > 0, got " + value);
    }
  }

  /** True when neither limit is set. */
  public boolean keepsAll() {
    return ms == KEEP && bytes == KEEP;
  }

  /** This retention with {@code ms} replaced. */
  public Retention withMs(long ms) {
    return new Retention(ms, bytes);
  }

  /** This retention with {@code bytes} replaced. */
  public Retention withBytes(long bytes) {
    return new Retention(ms, bytes);
  }

  /** {@code retention.ms=... retention.bytes=...}, -1 printed as {@code -1}. */
  @Override
  public String toString() {
    return "retention.ms=" + ms + " retention.bytes=" + bytes;
  }
}
