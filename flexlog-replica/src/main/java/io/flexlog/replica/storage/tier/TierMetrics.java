package io.flexlog.replica.storage.tier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The tiered engine's Micrometer meters. Gauges read values the owner thread publishes in volatile
 * fields ({@link #publish}), so a scrape never touches storage state; counters are incremented by
 * the owner thread and allocate nothing. Meters are removed on {@link #close}, so a storage
 * reopened in the same process reports fresh values.
 */
final class TierMetrics implements AutoCloseable {
  static final String PM_USED = "flexlog.storage.pm.used.bytes";
  static final String PM_CAPACITY = "flexlog.storage.pm.capacity.bytes";
  static final String SSD_BYTES = "flexlog.storage.ssd.bytes";
  static final String SSD_SEGMENTS = "flexlog.storage.ssd.segments";
  static final String CACHE_USED = "flexlog.storage.cache.used.bytes";
  static final String CACHE_HITS = "flexlog.storage.cache.hits";
  static final String CACHE_MISSES = "flexlog.storage.cache.misses";
  static final String TIERING_MOVES = "flexlog.storage.tiering.moves";
  static final String TIERING_BYTES = "flexlog.storage.tiering.bytes";

  private final MeterRegistry registry;
  private final List<Meter> meters = new ArrayList<>();
  final Counter cacheHits;
  final Counter cacheMisses;
  final Counter tieringMoves;
  final Counter tieringBytes;

  private volatile long pmUsed;
  private volatile long pmCapacity;
  private volatile long ssdBytes;
  private volatile long segments;
  private volatile long cacheUsed;

  TierMetrics(MeterRegistry registry, Iterable<Tag> tags) {
    this.registry = registry;
    gauge(PM_USED, "persistent-memory log bytes in use", tags, m -> m.pmUsed);
    gauge(PM_CAPACITY, "persistent-memory log capacity", tags, m -> m.pmCapacity);
    gauge(SSD_BYTES, "bytes of SSD segment files", tags, m -> m.ssdBytes);
    gauge(SSD_SEGMENTS, "SSD segment files", tags, m -> m.segments);
    gauge(CACHE_USED, "bytes of records in the off-heap cache", tags, m -> m.cacheUsed);
    cacheHits = counter(CACHE_HITS, "reads served from the off-heap cache", tags);
    cacheMisses = counter(CACHE_MISSES, "reads served from PM or SSD", tags);
    tieringMoves = counter(TIERING_MOVES, "segments written from PM to SSD", tags);
    tieringBytes = counter(TIERING_BYTES, "bytes of PM chunks moved to SSD", tags);
  }

  void publish(long pmUsed, long pmCapacity, long ssdBytes, int segments, long cacheUsed) {
    this.pmUsed = pmUsed;
    this.pmCapacity = pmCapacity;
    this.ssdBytes = ssdBytes;
    this.segments = segments;
    this.cacheUsed = cacheUsed;
  }

  private void gauge(
      String name, String description, Iterable<Tag> tags, ToDoubleFunction<TierMetrics> value) {
    meters.add(
        Gauge.builder(name, this, value)
            .tags(tags)
            .description(description)
            .strongReference(true)
            .register(registry));
  }

  private Counter counter(String name, String description, Iterable<Tag> tags) {
    Counter counter = Counter.builder(name).tags(tags).description(description).register(registry);
    meters.add(counter);
    return counter;
  }

  @Override
  public void close() {
    for (Meter meter : meters) {
      registry.remove(meter);
    }
    meters.clear();
  }
}
