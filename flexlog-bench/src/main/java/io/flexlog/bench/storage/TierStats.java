package io.flexlog.bench.storage;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The tiered engine's counters and sizes for one log, or summed over a run's logs. Counters (cache
 * hits and misses, segments written, bytes moved, PM-full waits) count events, so a measurement's
 * share is the difference of two snapshots ({@link #since}); sizes (segments on SSD, bytes on SSD,
 * PM and cache in use) are the state when the later snapshot was taken.
 *
 * @param cacheHits reads the off-heap cache served ({@value #CACHE_HITS})
 * @param cacheMisses reads served from PM or SSD ({@value #CACHE_MISSES})
 * @param tieringMoves segments written from PM to SSD ({@value #TIERING_MOVES})
 * @param tieringBytes bytes of PM chunks moved to SSD ({@value #TIERING_BYTES})
 * @param segments SSD segment files
 * @param ssdBytes bytes of SSD segment files
 * @param pmUsedBytes PM log bytes in use
 * @param cacheUsedBytes bytes of records in the cache
 * @param pmFullWaits appends that found PM full and waited for tiering to free a chunk
 * @param pmFullWaitNanos time those appends waited, part of their latency
 */
public record TierStats(
    long cacheHits,
    long cacheMisses,
    long tieringMoves,
    long tieringBytes,
    long segments,
    long ssdBytes,
    long pmUsedBytes,
    long cacheUsedBytes,
    long pmFullWaits,
    long pmFullWaitNanos) {
  // The engine's meter names (io.flexlog.replica.storage.tier.TierMetrics, exported to Prometheus
  // as
  // flexlog_storage_cache_hits_total etc.). TieredRecordLogTest fails if they stop moving.
  static final String CACHE_HITS = "flexlog.storage.cache.hits";
  static final String CACHE_MISSES = "flexlog.storage.cache.misses";
  static final String TIERING_MOVES = "flexlog.storage.tiering.moves";
  static final String TIERING_BYTES = "flexlog.storage.tiering.bytes";

  public static final TierStats ZERO = new TierStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

  /** The engine's counters as {@code registry} holds them, with the sizes and waits given. */
  static TierStats read(
      MeterRegistry registry,
      long segments,
      long ssdBytes,
      long pmUsedBytes,
      long cacheUsedBytes,
      long pmFullWaits,
      long pmFullWaitNanos) {
    return new TierStats(
        count(registry, CACHE_HITS),
        count(registry, CACHE_MISSES),
        count(registry, TIERING_MOVES),
        count(registry, TIERING_BYTES),
        segments,
        ssdBytes,
        pmUsedBytes,
        cacheUsedBytes,
        pmFullWaits,
        pmFullWaitNanos);
  }

  private static long count(MeterRegistry registry, String name) {
    Counter counter = registry.find(name).counter();
    if (counter == null) {
      throw new IllegalStateException(
          "the tiered engine registered no counter " + name + ": was it renamed?");
    }
    return (long) counter.count();
  }

  /** The counters since {@code start}; the sizes as in this snapshot. */
  public TierStats since(TierStats start) {
    return new TierStats(
        cacheHits - start.cacheHits,
        cacheMisses - start.cacheMisses,
        tieringMoves - start.tieringMoves,
        tieringBytes - start.tieringBytes,
        segments,
        ssdBytes,
        pmUsedBytes,
        cacheUsedBytes,
        pmFullWaits - start.pmFullWaits,
        pmFullWaitNanos - start.pmFullWaitNanos);
  }

  /** Counters and sizes of two logs added up. */
  public TierStats plus(TierStats other) {
    return new TierStats(
        cacheHits + other.cacheHits,
        cacheMisses + other.cacheMisses,
        tieringMoves + other.tieringMoves,
        tieringBytes + other.tieringBytes,
        segments + other.segments,
        ssdBytes + other.ssdBytes,
        pmUsedBytes + other.pmUsedBytes,
        cacheUsedBytes + other.cacheUsedBytes,
        pmFullWaits + other.pmFullWaits,
        pmFullWaitNanos + other.pmFullWaitNanos);
  }

  /** Share of reads the cache served, 0 to 1; NaN without reads. */
  public double hitRatio() {
    long reads = cacheHits + cacheMisses;
    return reads == 0 ? Double.NaN : (double) cacheHits / reads;
  }
}
