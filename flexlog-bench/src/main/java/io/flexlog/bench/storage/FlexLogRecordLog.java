package io.flexlog.bench.storage;

import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.replica.storage.StorageException;
import io.flexlog.replica.storage.chunk.PmEntryDescriptor;
import io.flexlog.replica.storage.tier.TieredLogStorage;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;

/**
 * One thread's FlexLog log, used as a replica uses it with a batch of one: an append is {@code
 * appendPending} + {@code commit} (SN = record number + 1) + {@code flush}, so every record is
 * durable per the mode before the next. A read looks the entry's address up in a primitive ring
 * indexed by record number (like the replica's SN index) and copies the payload into the caller's
 * array at once.
 *
 * <p>Two kinds of log:
 *
 * <ul>
 *   <li><b>PM engine</b> ({@code llpl} or {@code mapped}, {@code tiered} empty): a log of {@code
 *       logBytes}; a read copies the {@code payload} view. The log is full when {@code
 *       appendPending} finds no room.
 *   <li><b>Tiered engine</b>: the replica's {@link TieredLogStorage} (off-heap cache, a PM log of
 *       {@link TieredOptions#pmBytes()}, SSD segments), its meters in a registry of its own. A read
 *       is what the replica does to serve one: {@code retainedPayload} (cache, then PM, then SSD; a
 *       miss fills the cache), copy, release. The log is full when it holds {@code logBytes} of
 *       entries; an append that finds PM full before that waits, with its clock running, until
 *       tiering has moved chunks to SSD ({@link TierStats#pmFullWaits()}).
 * </ul>
 *
 * <p>A full log makes room by trimming ({@link #makeRoom()}): the oldest half of its records are
 * trimmed through {@link LogStorage#trim}, which frees the PM chunks (and SSD segments) they
 * filled, so the log keeps its space and its newer records.
 *
 * <p>Threading: one owner thread, like {@link LogStorage}; {@link #close()} may come from another
 * thread once the owner has stopped.
 */
final class FlexLogRecordLog implements RecordLog {
  static final int SHARD_ID = 0;
  static final int COLOR_ID = 0;

  /** Records per flush while preloading. */
  static final int PRELOAD_BATCH = 1000;

  /** How long an append waits for tiering to free PM before the run fails. */
  static final Duration MAX_PM_FULL_WAIT = Duration.ofSeconds(60);

  private static final long PM_FULL_PARK_NANOS = 20_000;

  private final Path dir;
  private final long logBytes;
  private final int thread;
  private final ByteBuf record;
  private final LogStorage storage;
  private final TieredLogStorage tiered;
  private final SimpleMeterRegistry registry;
  private final long[] addresses;
  private final long maxLive;
  private long first;
  private long written;
  private long pmFullWaits;
  private long pmFullWaitNanos;
  private boolean closed;

  /**
   * @param logBytes the log's capacity: the PM log's size, or with {@code tiered} the entries it
   *     keeps over all tiers before the oldest are trimmed
   * @param chunkBytes the PM log's chunk size
   */
  FlexLogRecordLog(
      String engine,
      Path dir,
      long logBytes,
      long chunkBytes,
      DurabilityMode durability,
      Optional<TieredOptions> tieredOptions,
      RecordPattern pattern,
      int thread) {
    this.dir = dir;
    this.logBytes = logBytes;
    this.thread = thread;
    this.addresses = new long[indexCapacity(logBytes, pattern.recordBytes())];
    this.maxLive = addresses.length - 1L;
    this.record = Unpooled.directBuffer(pattern.recordBytes(), pattern.recordBytes());
    pattern.fill(record);
    try {
      if (tieredOptions.isPresent()) {
        TieredOptions options = tieredOptions.get();
        this.registry = new SimpleMeterRegistry();
        this.tiered =
            StorageEngines.openTiered(
                engine,
                dir,
                options.pmBytes(),
                options.chunkBytes(),
                durability,
                options.config(dir),
                registry,
                Tags.of("thread", Integer.toString(thread)));
        this.storage = tiered;
      } else {
        this.registry = null;
        this.tiered = null;
        this.storage = StorageEngines.open(engine, dir, logBytes, chunkBytes, durability);
      }
    } catch (RuntimeException e) {
      record.release();
      throw e;
    }
    try {
      storage.recover((address, shard, color, session, sequence, sn, length) -> {});
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Entries a log of {@code logBytes} can hold at most, plus one: the size of the index ring. */
  static int indexCapacity(long logBytes, int recordBytes) {
    long entries = logBytes / PmEntryDescriptor.entryLength(recordBytes) + 1;
    return (int) Math.min(Integer.MAX_VALUE - 8, entries);
  }

  @Override
  public boolean append() {
    long address = appendOne();
    if (address == LogStorage.NO_SPACE) {
      return false;
    }
    storage.flush();
    return true;
  }

  /** Appends and commits record {@link #written}, or returns NO_SPACE when the log is full. */
  private long appendOne() {
    if (written - first >= maxLive) {
      return LogStorage.NO_SPACE; // the tiered log's window is full (a PM log fills first)
    }
    long recordNumber = written;
    RecordPattern.stamp(record, RecordPattern.key(thread, recordNumber));
    long address = storage.appendPending(SHARD_ID, COLOR_ID, thread + 1L, recordNumber, record);
    if (address == LogStorage.NO_SPACE) {
      if (tiered == null) {
        return LogStorage.NO_SPACE;
      }
      address = awaitPmSpace(recordNumber);
    }
    storage.commit(address, recordNumber + 1);
    addresses[(int) (recordNumber % addresses.length)] = address;
    written++;
    return address;
  }

  /**
   * PM is full and tiering has not freed a chunk yet: retry, as a replica's client retries a
   * StorageFullException, until the tiering thread's segment is applied (the retried {@code
   * appendPending} applies it and starts the next one).
   */
  private long awaitPmSpace(long recordNumber) {
    long start = System.nanoTime();
    pmFullWaits++;
    while (true) {
      LockSupport.parkNanos(PM_FULL_PARK_NANOS);
      long address = storage.appendPending(SHARD_ID, COLOR_ID, thread + 1L, recordNumber, record);
      long now = System.nanoTime();
      if (address != LogStorage.NO_SPACE) {
        pmFullWaitNanos += now - start;
        return address;
      }
      if (now - start > MAX_PM_FULL_WAIT.toNanos()) {
        throw new StorageException(
            "thread "
                + thread
                + ": PM of the tiered log in "
                + dir
                + " stayed full for "
                + MAX_PM_FULL_WAIT.toSeconds()
                + " s: tiering to "
                + tiered.segmentDir()
                + " made no progress (see the log for a tiering error)");
      }
    }
  }

  @Override
  public void preload(int records) {
    for (int i = 0; i < records; i++) {
      if (appendOne() == LogStorage.NO_SPACE) {
        storage.flush();
        throw new StorageException(
            "a log of " + logBytes + " bytes cannot hold the preload of " + records + " records");
      }
      if ((i + 1) % PRELOAD_BATCH == 0) {
        storage.flush();
      }
    }
    storage.flush();
  }

  @Override
  public int read(long recordNumber, byte[] destination) {
    if (recordNumber < first || recordNumber >= written) {
      throw new IllegalStateException(
          "record "
              + recordNumber
              + (recordNumber >= written ? " not written" : " trimmed")
              + "; records "
              + first
              + " to "
              + (written - 1)
              + " are in the log");
    }
    long address = addresses[(int) (recordNumber % addresses.length)];
    if (tiered == null) {
      ByteBuf view = storage.payload(address);
      int length = view.readableBytes();
      view.getBytes(view.readerIndex(), destination, 0, length);
      return length;
    }
    ByteBuf payload = storage.retainedPayload(address);
    try {
      int length = payload.readableBytes();
      payload.getBytes(payload.readerIndex(), destination, 0, length);
      return length;
    } finally {
      payload.release();
    }
  }

  @Override
  public long written() {
    return written;
  }

  @Override
  public long firstRecord() {
    return first;
  }

  /**
   * Trims the oldest half of the records (SN of record n is n + 1), which frees the PM chunks and
   * SSD segments holding only those.
   *
   * @throws StorageException when the log is full without a record to trim
   */
  @Override
  public void makeRoom() {
    long live = written - first;
    if (live == 0) {
      throw new StorageException(
          "the log in " + dir + " is full without a record in it: nothing to trim");
    }
    long cut = first + Math.max(1, live / 2);
    storage.trim(COLOR_ID, cut);
    first = cut;
  }

  @Override
  public Optional<TierStats> tierStats() {
    if (tiered == null) {
      return Optional.empty();
    }
    return Optional.of(
        TierStats.read(
            registry,
            tiered.segmentCount(),
            tiered.ssdBytes(),
            tiered.usedBytes(),
            tiered.cache().usedBytes(),
            pmFullWaits,
            pmFullWaitNanos));
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      storage.close();
      record.release();
      if (registry != null) {
        registry.close();
      }
    }
  }
}
