package io.flexlog.bench.storage;

import io.flexlog.replica.storage.tier.TieredStorageConfig;
import java.nio.file.Path;

/**
 * The sizes of the tiered engine ({@link io.flexlog.replica.storage.tier.TieredLogStorage}) one
 * benchmark thread's log gets: its PM log and its off-heap cache. The rest is the replica's default
 * ({@link TieredStorageConfig#defaults}: PM high watermark, segment size); segments go to {@code
 * segments} inside the thread's log directory, as a replica keeps them in {@code
 * <data-dir>/segments}.
 *
 * @param pmBytes capacity of the PM log in front of the SSD segments
 * @param cacheBytes budget of the off-heap cache, 0 for none
 */
public record TieredOptions(long pmBytes, long cacheBytes) {
  public static final String SEGMENT_DIR = "segments";

  public TieredOptions {
    if (pmBytes <= 0) {
      throw new IllegalArgumentException("PM bytes must be positive, got " + pmBytes);
    }
  }

  /** PM chunk size: the engines' default, smaller for small PM logs. */
  public long chunkBytes() {
    return StorageSettings.chunkBytes(pmBytes);
  }

  /**
   * The tiered engine's settings for a log in {@code logDir}.
   *
   * @throws io.flexlog.core.error.InvalidArgumentException for a cache budget the engine refuses
   */
  public TieredStorageConfig config(Path logDir) {
    return TieredStorageConfig.defaults(logDir.resolve(SEGMENT_DIR)).withCacheBytes(cacheBytes);
  }
}
