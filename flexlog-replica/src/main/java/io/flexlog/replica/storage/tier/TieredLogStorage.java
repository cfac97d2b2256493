package io.flexlog.replica.storage.tier;

import io.flexlog.core.model.TierUsage;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.replica.storage.StorageException;
import io.flexlog.replica.storage.TierableLog;
import io.flexlog.replica.storage.cache.RecordCache;
import io.flexlog.replica.storage.segment.SegmentStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.netty.buffer.ByteBuf;
import java.nio.file.Path;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.LongSupplier;

/**
 * The replica's storage as docs/architecture.md#storage describes it: three tiers behind one {@link
 * LogStorage}, read in this order: an off-heap DRAM cache ({@link RecordCache}), the
 * persistent-memory log (the llpl or mapped engine), and SSD segments ({@link SegmentStore}).
 *
 * <ul>
 *   <li><b>Writes</b> go to PM (the durable copy) and into the cache. Commits and flushes are PM's.
 *   <li><b>Reads</b> try the cache, then PM, then SSD; a miss fills the cache, except for a scan
 *       ({@link #scanPayload}: subscriptions), which reads the lower tier directly. Addresses never
 *       change, whichever tier holds the entry.
 *   <li><b>Tiering</b>: when PM use passes {@code pm.high-watermark} of its capacity, the oldest
 *       sealed chunks without pending entries (a contiguous range of chunk sequences, up to {@code
 *       segment.bytes} and to half the PM space above the watermark, at least one chunk) are copied
 *       into one segment file; after that file and its directory are fsync'ed the chunks are freed.
 *       A pending entry stops tiering at its chunk until it is committed.
 *   <li><b>Trim</b> persists the trim point in PM, frees PM chunks whose entries are all dead and
 *       deletes segments whose entries are all dead.
 *   <li><b>Recovery</b> rebuilds from SSD, then PM; {@link SegmentStore} says which tier is
 *       authoritative for a chunk both hold after a crash.
 * </ul>
 *
 * <p><b>Threading contract.</b> One owner thread (the replica's event loop) calls every method, as
 * for any {@link LogStorage}. The copy of chunks into a segment file and its fsyncs run on a
 * background tiering thread, which only reads chunks the owner handed it (the owner neither writes
 * nor frees them meanwhile) and touches no other state. It hands its result back through a queue;
 * the owner applies it (installs the segment, frees the PM chunks) in its next {@link #flush()},
 * {@link #trim} or an {@link #appendPending} that finds PM full, or, when the owner registered its
 * executor with {@link #wakeOwnerWith}, in a task the tiering thread posts to it (which then starts
 * the next segment if PM is still above its watermark, so an idle owner catches up too). So the
 * owner never waits for SSD I/O, and until it applies a result the chunks stay readable in PM.
 * Segment deletions after a trim also run on the tiering thread. One segment is written at a time.
 */
public final class TieredLogStorage implements LogStorage {
  private final TierableLog pm;
  private final RecordCache cache;
  private final SegmentStore segments;
  private final TierMetrics metrics;
  private final SegmentTiering tiering;

  private TieredLogStorage(
      TierableLog pm,
      TieredStorageConfig config,
      MeterRegistry registry,
      Iterable<Tag> tags,
      Executor tieringThread,
      ExecutorService ownedTieringThread,
      LongSupplier nanoClock) {
    this.pm = pm;
    this.cache = new RecordCache(config.cacheBytes());
    this.segments = new SegmentStore(config.segmentDir());
    this.metrics = new TierMetrics(registry, tags);
    this.tiering =
        new SegmentTiering(
            pm,
            segments,
            metrics,
            config,
            tieringThread,
            ownedTieringThread,
            nanoClock,
            this::publishMetrics);
    publishMetrics();
  }

  /**
   * Puts a cache and an SSD tier around a PM log (an llpl or mapped engine; {@link
   * StorageEngines#openTiered} opens both); the tiered storage owns it from now on (closes it).
   * Call {@link #recover} before appending.
   *
   * @param tags tags for the storage's meters, e.g. the node id
   * @throws StorageException when the segment directory cannot be created
   */
  public static TieredLogStorage open(
      TierableLog pm, TieredStorageConfig config, MeterRegistry registry, Iterable<Tag> tags) {
    ExecutorService thread =
        Executors.newSingleThreadExecutor(
            task -> {
              Thread t = new Thread(task, "flexlog-tiering " + config.segmentDir());
              t.setDaemon(true);
              return t;
            });
    try {
      return new TieredLogStorage(pm, config, registry, tags, thread, thread, System::nanoTime);
    } catch (RuntimeException e) {
      thread.shutdown();
      throw e;
    }
  }

  /** As {@link #open}, with the tiering thread and the clock supplied by a test. */
  static TieredLogStorage open(
      TierableLog pm,
      TieredStorageConfig config,
      MeterRegistry registry,
      Iterable<Tag> tags,
      Executor tieringThread,
      LongSupplier nanoClock) {
    return new TieredLogStorage(pm, config, registry, tags, tieringThread, null, nanoClock);
  }

  // ---------------------------------------------------------------- writes

  @Override
  public long appendPending(
      int shardId,
      int colorId,
      long tokenSession,
      long tokenSequence,
      ByteBuf source,
      int index,
      int length) {
    long address =
        pm.appendPending(shardId, colorId, tokenSession, tokenSequence, source, index, length);
    if (address == NO_SPACE) {
      tiering.applyFinished();
      address =
          pm.appendPending(shardId, colorId, tokenSession, tokenSequence, source, index, length);
      if (address == NO_SPACE) {
        tiering.start(true); // full: whatever the watermark says
        return NO_SPACE;
      }
    }
    cache.putAppended(address, source, index, length);
    return address;
  }

  @Override
  public void commit(long address, long sn) {
    pm.commit(address, sn); // pending entries never leave PM
  }

  @Override
  public void flush() {
    pm.flush();
    tiering.applyFinished();
    tiering.startIfNeeded();
    publishMetrics();
  }

  @Override
  public void trim(int colorId, long sn) {
    pm.trim(colorId, sn);
    tiering.applyFinished();
    tiering.deleteTrimmedSegments();
    publishMetrics();
  }

  @Override
  public long trimPoint(int colorId) {
    return pm.trimPoint(colorId);
  }

  // ---------------------------------------------------------------- reads

  @Override
  public int payloadLength(long address) {
    checkOpen();
    int length = cache.length(address);
    if (length >= 0) {
      return length;
    }
    if (pm.holds(address)) {
      return pm.payloadLength(address);
    }
    length = segments.payloadLength(address);
    if (length < 0) {
      throw unknown(address);
    }
    return length;
  }

  @Override
  public long tokenSession(long address) {
    checkOpen();
    if (pm.holds(address)) {
      return pm.tokenSession(address);
    }
    if (segments.payloadLength(address) < 0) {
      throw unknown(address);
    }
    return segments.tokenSession(address);
  }

  @Override
  public long tokenSequence(long address) {
    checkOpen();
    if (pm.holds(address)) {
      return pm.tokenSequence(address);
    }
    if (segments.payloadLength(address) < 0) {
      throw unknown(address);
    }
    return segments.tokenSequence(address);
  }

  @Override
  public ByteBuf payload(long address) {
    checkOpen();
    ByteBuf cached = cache.view(address);
    if (cached != null) {
      metrics.cacheHits.increment();
      return cached;
    }
    metrics.cacheMisses.increment();
    ByteBuf lower = pm.holds(address) ? pm.payload(address) : ssdPayload(address);
    if (cache.put(address, lower, lower.readerIndex(), lower.readableBytes())) {
      return cache.view(address);
    }
    return lower;
  }

  @Override
  public ByteBuf retainedPayload(long address) {
    checkOpen();
    ByteBuf cached = cache.retainedView(address);
    if (cached != null) {
      metrics.cacheHits.increment();
      return cached;
    }
    metrics.cacheMisses.increment();
    boolean inPm = pm.holds(address);
    ByteBuf lower = inPm ? pm.payload(address) : ssdPayload(address);
    if (cache.put(address, lower, lower.readerIndex(), lower.readableBytes())) {
      return cache.retainedView(address);
    }
    // Too large to cache: a view of PM that pins its chunk, or of the segment mapping.
    return inPm ? pm.retainedPayload(address) : lower.retain();
  }

  @Override
  public ByteBuf scanPayload(long address) {
    checkOpen();
    ByteBuf cached = cache.retainedView(address);
    if (cached != null) {
      metrics.cacheHits.increment();
      return cached;
    }
    metrics.cacheMisses.increment();
    // A view of PM that pins its chunk, or of the segment mapping (as for uncacheable records).
    return pm.holds(address) ? pm.retainedPayload(address) : ssdPayload(address).retain();
  }

  @Override
  public int scanCopy(long address, ByteBuf dst, int copyBelow) {
    checkOpen();
    int cached = cache.copyOut(address, dst, copyBelow);
    if (cached != RecordCache.NOT_CACHED) {
      if (cached >= 0) {
        metrics.cacheHits.increment(); // a longer one is counted by the caller's scanPayload
      }
      return cached;
    }
    if (pm.holds(address)) {
      int copied = pm.scanCopy(address, dst, copyBelow);
      if (copied >= 0) {
        metrics.cacheMisses.increment();
      }
      return copied;
    }
    ByteBuf payload = ssdPayload(address);
    int length = payload.readableBytes();
    if (length >= copyBelow) {
      return -1 - length;
    }
    metrics.cacheMisses.increment();
    dst.writeBytes(payload, payload.readerIndex(), length);
    return length;
  }

  private ByteBuf ssdPayload(long address) {
    ByteBuf payload = segments.payload(address);
    if (payload == null) {
      throw unknown(address);
    }
    return payload;
  }

  private static IllegalArgumentException unknown(long address) {
    return new IllegalArgumentException(
        "no tier holds an entry at address 0x" + Long.toHexString(address));
  }

  // ---------------------------------------------------------------- tiering

  /**
   * Has the tiering thread post the application of each finished segment to {@code ownerExecutor}
   * (the owner's event loop), so PM is freed and tiering continues without waiting for the owner's
   * next flush. Call from the owner thread, e.g. when the event loop that will own the storage is
   * created.
   */
  @Override
  public void wakeOwnerWith(Executor ownerExecutor) {
    tiering.wakeOwnerWith(ownerExecutor);
  }

  // ---------------------------------------------------------------- recovery and state

  @Override
  public void recover(EntryVisitor visitor) {
    checkOpen();
    segments.recover(pm::holdsChunk);
    segments.replay(visitor, pm::holdsChunk, pm.trimPoints());
    pm.recover(visitor, segments::coversAuthoritatively, segments.maxSequence());
    for (Path file : segments.removeTrimmed(pm.trimPoints())) {
      SegmentStore.delete(file);
    }
    publishMetrics();
  }

  @Override
  public long usedBytes() {
    return pm.usedBytes();
  }

  @Override
  public long capacityBytes() {
    return pm.capacityBytes();
  }

  @Override
  public TierUsage tierUsage() {
    TierUsage inPm = pm.tierUsage();
    return new TierUsage(
        cache.records(),
        cache.usedBytes(),
        inPm.pmRecords(),
        inPm.pmBytes(),
        inPm.pmCapacityBytes(),
        segments.entries(),
        segments.bytes(),
        segments.count());
  }

  /** Bytes of the SSD tier's segment files. */
  public long ssdBytes() {
    return segments.bytes();
  }

  /** Number of SSD segments. */
  public int segmentCount() {
    return segments.count();
  }

  /** True while a segment is being written. */
  public boolean isTiering() {
    return tiering.isTiering();
  }

  public RecordCache cache() {
    return cache;
  }

  public Path segmentDir() {
    return segments.dir();
  }

  @Override
  public String engineName() {
    return pm.engineName();
  }

  @Override
  public DurabilityMode durability() {
    return pm.durability();
  }

  /**
   * Waits for the segment being written (never reading PM after it is closed), then closes PM and
   * releases the cache. A segment that finished but was not applied yet stays on SSD next to its PM
   * chunks; recovery resolves that.
   */
  @Override
  public void close() {
    if (tiering.isClosed()) {
      return;
    }
    tiering.close();
    cache.close();
    metrics.close();
    pm.close();
    segments.close();
  }

  private void checkOpen() {
    if (tiering.isClosed()) {
      throw new IllegalStateException("tiered storage on " + segments.dir() + " is closed");
    }
  }

  private void publishMetrics() {
    metrics.publish(
        pm.usedBytes(), pm.capacityBytes(), segments.bytes(), segments.count(), cache.usedBytes());
  }
}
