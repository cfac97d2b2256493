package io.flexlog.replica.storage.tier;

import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.replica.storage.cache.RecordCache;
import java.nio.file.Path;

/**
 * The settings of the tiered engine ({@link TieredLogStorage}), validated once when created. A node
 * builds them from its cluster file ({@code cache-bytes}, {@code pm-high-watermark}, {@code
 * segment-bytes}, {@code segment-dir}), checked there first with the user's key names (see {@code
 * docs/configuration.md}); the dotted names below are used when it is built in code.
 *
 * <pre>{@code
 * TieredStorageConfig config =
 *     TieredStorageConfig.defaults(dataDir.resolve("segments")).withCacheBytes(256L << 20);
 * }</pre>
 *
 * @param cacheBytes {@value #CACHE_BYTES}: the off-heap cache's budget; 0 disables the cache, else
 *     at least 64 KiB. Default {@value #DEFAULT_CACHE_BYTES}.
 * @param pmHighWatermark {@value #PM_HIGH_WATERMARK}: the fraction of PM capacity in use above
 *     which the oldest committed chunks move to SSD segments, in (0, 1]. Default {@value
 *     #DEFAULT_PM_HIGH_WATERMARK}.
 * @param segmentDir {@value #SEGMENT_DIR}: where segment files live (created if missing).
 * @param segmentBytes {@value #SEGMENT_BYTES}: the target size of one segment: it holds as many of
 *     the oldest whole PM chunks as fit (at least one), and no more than half the PM space above
 *     the watermark, so that a small PM tiers in small steps. Between 64 KiB and 1 GiB. Default
 *     {@value #DEFAULT_SEGMENT_BYTES}.
 */
public record TieredStorageConfig(
    long cacheBytes, double pmHighWatermark, Path segmentDir, long segmentBytes) {
  public static final String CACHE_BYTES = "cache.bytes";
  public static final String PM_HIGH_WATERMARK = "pm.high-watermark";
  public static final String SEGMENT_DIR = "segment.dir";
  public static final String SEGMENT_BYTES = "segment.bytes";

  public static final long DEFAULT_CACHE_BYTES = 64L << 20;
  public static final double DEFAULT_PM_HIGH_WATERMARK = 0.75;
  public static final long DEFAULT_SEGMENT_BYTES = 64L << 20;
  public static final long MIN_CACHE_BYTES = RecordCache.MIN_BUDGET_BYTES;
  public static final long MIN_SEGMENT_BYTES = 64L << 10;
  public static final long MAX_SEGMENT_BYTES = 1L << 30;

  /**
   * @throws InvalidArgumentException naming the key and the value at fault
   */
  public TieredStorageConfig {
    if (cacheBytes != 0 && cacheBytes < MIN_CACHE_BYTES) {
      throw new InvalidArgumentException(
          CACHE_BYTES
              + " must be 0 (no cache) or at least "
              + MIN_CACHE_BYTES
              + " bytes, got "
              + cacheBytes);
    }
    if (!(pmHighWatermark > 0 && pmHighWatermark <= 1)) {
      throw new InvalidArgumentException(
          PM_HIGH_WATERMARK + " must be a fraction in (0, 1], got " + pmHighWatermark);
    }
    if (segmentDir == null) {
      throw new InvalidArgumentException(SEGMENT_DIR + " is required");
    }
    if (segmentBytes < MIN_SEGMENT_BYTES || segmentBytes > MAX_SEGMENT_BYTES) {
      throw new InvalidArgumentException(
          SEGMENT_BYTES
              + " must be between "
              + MIN_SEGMENT_BYTES
              + " and "
              + MAX_SEGMENT_BYTES
              + " bytes, got "
              + segmentBytes);
    }
  }

  /** The defaults, with segments in {@code segmentDir}. */
  public static TieredStorageConfig defaults(Path segmentDir) {
    return new TieredStorageConfig(
        DEFAULT_CACHE_BYTES, DEFAULT_PM_HIGH_WATERMARK, segmentDir, DEFAULT_SEGMENT_BYTES);
  }

  public TieredStorageConfig withCacheBytes(long bytes) {
    return new TieredStorageConfig(bytes, pmHighWatermark, segmentDir, segmentBytes);
  }

  public TieredStorageConfig withPmHighWatermark(double fraction) {
    return new TieredStorageConfig(cacheBytes, fraction, segmentDir, segmentBytes);
  }

  public TieredStorageConfig withSegmentBytes(long bytes) {
    return new TieredStorageConfig(cacheBytes, pmHighWatermark, segmentDir, bytes);
  }
}
