package io.flexlog.bench.storage;

import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.replica.storage.chunk.PmEntryDescriptor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The validated arguments of {@code flexlog bench storage}: one workload run on FlexLog's engine
 * and on RocksDB with the same parameters.
 *
 * @param engine FlexLog's PM engine, resolved: {@code llpl} or {@code mapped} (with {@code tiered},
 *     the engine of the tiered engine's PM log)
 * @param engineNotice why {@code auto} did not give {@code llpl}, if it did not
 * @param dataDir where the run's temporary directory is created
 * @param logBytes capacity of each FlexLog thread's log (with {@code tiered}: the records it keeps
 *     over all tiers); a full log trims its oldest half, in the measured time
 * @param tiered present for {@code --engine tiered}: the PM and cache sizes of each thread's tiered
 *     log
 */
public record StorageSettings(
    int recordBytes,
    int threads,
    int readPercent,
    DurabilityMode durability,
    String engine,
    Optional<String> engineNotice,
    Duration duration,
    Duration warmup,
    Path dataDir,
    long logBytes,
    Optional<TieredOptions> tiered,
    Optional<Path> json) {

  /** Records each thread writes before the warm-up, so reads have records from the start. */
  public static final int PRELOAD_RECORDS = 10_000;

  /** Records each thread reads back and compares byte for byte after the measurement. */
  public static final int VERIFY_RECORDS = 1_000;

  /** Time between progress lines. */
  public static final Duration PROGRESS_INTERVAL = Duration.ofSeconds(5);

  /** Chunk size of the FlexLog PM logs: the engines' default, smaller only for small logs. */
  public long chunkBytes() {
    return tiered.map(TieredOptions::chunkBytes).orElseGet(() -> chunkBytes(logBytes));
  }

  /** The engine as reports name it: {@code tiered}, or the PM engine. */
  public String engineName() {
    return tiered.isPresent() ? EngineChoice.TIERED : engine;
  }

  static long chunkBytes(long logBytes) {
    long quarter = (logBytes / 4) & -4096L;
    return Math.max(4096, Math.min(StorageEngines.DEFAULT_CHUNK_BYTES, quarter));
  }

  /** {@link #PRELOAD_RECORDS}, or fewer so that the preload takes at most a quarter of a log. */
  public int preloadRecords() {
    return preloadRecords(logBytes, recordBytes);
  }

  static int preloadRecords(long logBytes, int recordBytes) {
    long fit = logBytes / 4 / PmEntryDescriptor.entryLength(recordBytes);
    return (int) Math.min(PRELOAD_RECORDS, fit);
  }

  /** Heap bytes FlexLog's record-number indexes take at most: one long per entry a log can hold. */
  public static long indexBytes(int threads, long logBytes, int recordBytes) {
    return (long) threads * Long.BYTES * FlexLogRecordLog.indexCapacity(logBytes, recordBytes);
  }

  public StorageLoad.Plan plan() {
    return new StorageLoad.Plan(
        threads,
        readPercent,
        warmup,
        duration,
        preloadRecords(),
        VERIFY_RECORDS,
        PROGRESS_INTERVAL,
        readWindowRecords());
  }

  /**
   * Records that reads pick among, on both engines: what a FlexLog log surely still holds right
   * after trimming its oldest half (half of its capacity, less two chunks of slack), so that
   * RocksDB, which keeps every record, reads over the same range of keys.
   */
  public long readWindowRecords() {
    long usable = Math.max(logBytes - 2 * chunkBytes(), logBytes / 4);
    return Math.max(1, usable / 2 / PmEntryDescriptor.entryLength(recordBytes));
  }
}
