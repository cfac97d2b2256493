package io.flexlog.replica.storage;

import io.flexlog.replica.storage.pm.LlplLogStorage;
import io.flexlog.replica.storage.pm.MappedFileLogStorage;
import io.flexlog.replica.storage.tier.TieredLogStorage;
import io.flexlog.replica.storage.tier.TieredStorageConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Chooses and opens a {@link LogStorage} engine by name: {@code llpl} (persistent memory through
 * libpmemobj) or {@code mapped} (pure-Java mapped files). See each engine for what its durability
 * modes mean and require.
 *
 * <pre>{@code
 * String engine = StorageEngines.defaultEngine(); // "llpl" when libpmemobj loads, else "mapped"
 * try (LogStorage log = StorageEngines.open(engine, dir, 1L << 30, 16 << 20, DurabilityMode.PROCESS)) {
 *   log.recover(visitor);
 *   ...
 * }
 * }</pre>
 */
public final class StorageEngines {
  public static final String LLPL = LlplLogStorage.ENGINE_NAME;
  public static final String MAPPED = MappedFileLogStorage.ENGINE_NAME;

  /** Default chunk size: large enough that chunk switches are rare, small enough to reclaim. */
  public static final long DEFAULT_CHUNK_BYTES = 16L << 20;

  private StorageEngines() {}

  /**
   * Opens the log in {@code dir} with the named engine.
   *
   * @throws StorageException naming the problem: unknown engine, llpl unavailable (with the
   *     reason), capacity smaller than one chunk, a durability mode the engine cannot provide
   */
  public static LogStorage open(
      String engine, Path dir, long capacityBytes, long chunkBytes, DurabilityMode mode) {
    return openPm(engine, dir, capacityBytes, chunkBytes, mode);
  }

  /** As {@link #open}, typed as what the tier needs from a PM engine. */
  private static TierableLog openPm(
      String engine, Path dir, long capacityBytes, long chunkBytes, DurabilityMode mode) {
    String name = engine == null ? "" : engine.trim().toLowerCase(Locale.ROOT);
    if (capacityBytes < chunkBytes) {
      throw new StorageException(
          "storage capacity "
              + capacityBytes
              + " bytes is smaller than one chunk of "
              + chunkBytes
              + " bytes");
    }
    if (LLPL.equals(name)) {
      return LlplLogStorage.open(dir, capacityBytes, chunkBytes, mode);
    }
    if (MAPPED.equals(name)) {
      return MappedFileLogStorage.open(dir, capacityBytes, chunkBytes, mode);
    }
    throw new StorageException(
        "unknown storage engine '" + engine + "': expected " + LLPL + " or " + MAPPED);
  }

  /**
   * Opens the named engine's PM log in {@code dir} and puts the off-heap cache and the SSD tier
   * around it ({@link TieredLogStorage}); the result owns the PM log.
   *
   * @throws StorageException as {@link #open}, or when the segment directory cannot be created
   */
  public static TieredLogStorage openTiered(
      String engine,
      Path dir,
      long capacityBytes,
      long chunkBytes,
      DurabilityMode mode,
      TieredStorageConfig config,
      MeterRegistry registry,
      Iterable<Tag> tags) {
    TierableLog pm = openPm(engine, dir, capacityBytes, chunkBytes, mode);
    try {
      return TieredLogStorage.open(pm, config, registry, tags);
    } catch (RuntimeException e) {
      pm.close();
      throw e;
    }
  }

  /** {@code llpl} when libpmemobj is usable here, else {@code mapped}. */
  public static String defaultEngine() {
    return LlplLogStorage.isAvailable() ? LLPL : MAPPED;
  }

  /**
   * The one-line notice for the start-up banner when the default falls back to {@code mapped}, or
   * null when {@code llpl} is available.
   */
  public static String fallbackNotice() {
    return LlplLogStorage.isAvailable()
        ? null
        : "storage engine 'mapped' instead of 'llpl': " + LlplLogStorage.unavailableReason();
  }
}
