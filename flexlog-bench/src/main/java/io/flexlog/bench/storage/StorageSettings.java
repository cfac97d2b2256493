package io.flexlog.bench.storage;

import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.PmEntryDescriptor;
import io.flexlog.replica.storage.StorageEngines;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The validated arguments of {@code flexlog bench storage}: one workload run on FlexLog's engine
 * and on RocksDB with the same parameters.
 *
 * @param engine FlexLog's engine, resolved: {@code llpl} or {@code mapped}
 * @param engineNotice why {@code auto} did not give {@code llpl}, if it did not
 * @param dataDir where the run's temporary directory is created
 * @param logBytes capacity of each FlexLog thread's log; a full log is replaced, not measured
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
    Optional<Path> json) {

  /** Records each thread writes before the warm-up, so reads have records from the start. */
  public static final int PRELOAD_RECORDS = 10_000;

  /** Records each thread reads back and compares byte for byte after the measurement. */
  public static final int VERIFY_RECORDS = 1_000;

  /** Time between progress lines. */
  public static final Duration PROGRESS_INTERVAL = Duration.ofSeconds(5);

  /** Chunk size of the FlexLog logs: the engines' default, smaller only for small logs. */
  public long chunkBytes() {
    return chunkBytes(logBytes);
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
        PROGRESS_INTERVAL);
  }
}
