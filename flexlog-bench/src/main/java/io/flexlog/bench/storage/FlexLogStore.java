package io.flexlog.bench.storage;

import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.server.config.DataSize;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * FlexLog's replica storage engine under test: a PM engine ({@code llpl} or {@code mapped}) on its
 * own, or the tiered engine the replica runs (off-heap cache, that PM engine, SSD segments; see
 * {@link FlexLogRecordLog}). Each benchmark thread gets its own {@link
 * io.flexlog.replica.storage.LogStorage} in {@code <dir>/log-<thread>}, because a log has one owner
 * thread, as a replica node runs its log on its own event loop: T threads are T independent logs,
 * as T replicas (or T event loops with a log each) on one machine.
 */
public final class FlexLogStore implements RecordStore {
  private final String engine;
  private final Path dir;
  private final long logBytes;
  private final long chunkBytes;
  private final DurabilityMode durability;
  private final Optional<TieredOptions> tiered;
  private final RecordPattern pattern;
  private final Queue<FlexLogRecordLog> logs = new ConcurrentLinkedQueue<>();

  /**
   * @param engine {@code llpl} or {@code mapped}, see {@link
   *     io.flexlog.replica.storage.StorageEngines}
   * @param logBytes capacity of each thread's log (tiered: the records it keeps over all tiers)
   * @param chunkBytes chunk size of each thread's PM log
   * @param tiered present to run the tiered engine over {@code engine}'s PM log
   */
  public FlexLogStore(
      String engine,
      Path dir,
      long logBytes,
      long chunkBytes,
      DurabilityMode durability,
      Optional<TieredOptions> tiered,
      RecordPattern pattern) {
    this.engine = engine;
    this.dir = dir;
    this.logBytes = logBytes;
    this.chunkBytes = chunkBytes;
    this.durability = durability;
    this.tiered = tiered;
    this.pattern = pattern;
  }

  @Override
  public String name() {
    return "flexlog";
  }

  /** {@code tiered}, or the PM engine. */
  public String engine() {
    return tiered.isPresent() ? EngineChoice.TIERED : engine;
  }

  @Override
  public String description() {
    if (tiered.isPresent()) {
      TieredOptions t = tiered.get();
      return "FlexLog replica log, engine tiered (off-heap cache "
          + DataSize.format(t.cacheBytes())
          + ", PM engine "
          + engine
          + " "
          + DataSize.format(t.pmBytes())
          + " in "
          + DataSize.format(chunkBytes)
          + " chunks, SSD segments), durability "
          + durability.configName()
          + ", one log per thread (up to "
          + DataSize.format(logBytes)
          + " of records each); append = appendPending + commit + flush, read = record-number"
          + " index + retainedPayload (cache, PM, SSD) copied into a byte[] and released";
    }
    return "FlexLog replica log, engine "
        + engine
        + ", durability "
        + durability.configName()
        + ", one log per thread ("
        + DataSize.format(logBytes)
        + " each, "
        + DataSize.format(chunkBytes)
        + " chunks); append = appendPending + commit + flush, read = record-number index"
        + " + copy into a byte[]";
  }

  @Override
  public RecordLog openLog(int thread) {
    FlexLogRecordLog log =
        new FlexLogRecordLog(
            engine,
            dir.resolve("log-" + thread),
            logBytes,
            chunkBytes,
            durability,
            tiered,
            pattern,
            thread);
    logs.add(log);
    return log;
  }

  @Override
  public void close() {
    for (FlexLogRecordLog log : logs) {
      log.close();
    }
    logs.clear();
  }
}
