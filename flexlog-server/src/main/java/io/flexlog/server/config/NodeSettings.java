package io.flexlog.server.config;

import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.replica.atomic.AtomicConfig;
import io.flexlog.replica.replication.ReplicaLimits;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.replica.storage.tier.TieredStorageConfig;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The settings of one node process, from the {@code node:} section of a cluster file and
 * command-line overrides.
 *
 * @param engine {@code auto}, {@code llpl} or {@code mapped}
 * @param pmBytes the replica's log capacity
 * @param chunkBytes the size of one log chunk
 * @param readHold how long a replica holds an undecidable read
 * @param metricsPort the Prometheus endpoint's port, 0 for none
 * @param cacheBytes the off-heap cache's budget, 0 for none ({@code cache-bytes})
 * @param pmHighWatermark the fraction of PM in use above which old chunks move to SSD segments
 *     ({@code pm-high-watermark})
 * @param segmentDir where SSD segments live, null for {@code <data-dir>/segments} ({@code
 *     segment-dir})
 * @param segmentBytes the target size of one SSD segment ({@code segment-bytes})
 * @param atomic the replica's settings of atomic appends ({@code atomic-result-retention-ms},
 *     {@code atomic-result-retention-count}, {@code atomic-abandon-after-ms})
 */
public record NodeSettings(
    int nodeId,
    Path dataDir,
    String engine,
    DurabilityMode durability,
    long pmBytes,
    long chunkBytes,
    Duration readHold,
    int metricsPort,
    long cacheBytes,
    double pmHighWatermark,
    Path segmentDir,
    long segmentBytes,
    AtomicConfig atomic,
    Duration subscribeHeartbeat) {
  public static final String AUTO = "auto";
  public static final long DEFAULT_PM_BYTES = 256L << 20;
  public static final String SEGMENTS_SUBDIR = "segments";

  public NodeSettings {
    if (!AUTO.equals(engine)
        && !StorageEngines.LLPL.equals(engine)
        && !StorageEngines.MAPPED.equals(engine)) {
      throw new IllegalArgumentException(
          "engine: '" + engine + "' is not one of auto, llpl, mapped");
    }
    if (pmBytes < chunkBytes) {
      throw new IllegalArgumentException(
          "pm-bytes ("
              + DataSize.format(pmBytes)
              + ") must be at least one chunk ("
              + DataSize.format(chunkBytes)
              + ")");
    }
    if (metricsPort < 0 || metricsPort > 65535) {
      throw new IllegalArgumentException("metrics-port out of range: " + metricsPort);
    }
    if (segmentDir == null) {
      segmentDir = dataDir.resolve(SEGMENTS_SUBDIR);
    }
    if (atomic == null) {
      atomic = AtomicConfig.defaults();
    }
    if (subscribeHeartbeat == null) {
      subscribeHeartbeat = ReplicaLimits.DEFAULT_HEARTBEAT_INTERVAL;
    }
    if (subscribeHeartbeat.compareTo(ReplicaLimits.MIN_HEARTBEAT_INTERVAL) < 0) {
      throw new IllegalArgumentException(
          "subscribe-heartbeat-ms must be at least "
              + ReplicaLimits.MIN_HEARTBEAT_INTERVAL.toMillis()
              + ", got "
              + subscribeHeartbeat.toMillis());
    }
    try {
      new TieredStorageConfig(cacheBytes, pmHighWatermark, segmentDir, segmentBytes);
    } catch (InvalidArgumentException e) {
      // The same check, worded with this file's key names.
      throw new IllegalArgumentException(
          e.getMessage()
              .replace(TieredStorageConfig.CACHE_BYTES, "cache-bytes")
              .replace(TieredStorageConfig.PM_HIGH_WATERMARK, "pm-high-watermark")
              .replace(TieredStorageConfig.SEGMENT_BYTES, "segment-bytes"),
          e);
    }
  }

  /** Settings with the defaults of atomic appends and the default subscription heartbeat. */
  public NodeSettings(
      int nodeId,
      Path dataDir,
      String engine,
      DurabilityMode durability,
      long pmBytes,
      long chunkBytes,
      Duration readHold,
      int metricsPort,
      long cacheBytes,
      double pmHighWatermark,
      Path segmentDir,
      long segmentBytes) {
    this(
        nodeId,
        dataDir,
        engine,
        durability,
        pmBytes,
        chunkBytes,
        readHold,
        metricsPort,
        cacheBytes,
        pmHighWatermark,
        segmentDir,
        segmentBytes,
        AtomicConfig.defaults(),
        null);
  }

  /** Settings with the storage tiers' defaults (segments under {@code <data-dir>/segments}). */
  public NodeSettings(
      int nodeId,
      Path dataDir,
      String engine,
      DurabilityMode durability,
      long pmBytes,
      long chunkBytes,
      Duration readHold,
      int metricsPort) {
    this(
        nodeId,
        dataDir,
        engine,
        durability,
        pmBytes,
        chunkBytes,
        readHold,
        metricsPort,
        TieredStorageConfig.DEFAULT_CACHE_BYTES,
        TieredStorageConfig.DEFAULT_PM_HIGH_WATERMARK,
        null,
        TieredStorageConfig.DEFAULT_SEGMENT_BYTES);
  }

  /** The engine to open: {@code auto} resolves to llpl where libpmemobj loads, else mapped. */
  public String resolvedEngine() {
    return AUTO.equals(engine) ? StorageEngines.defaultEngine() : engine;
  }

  /** The cache and SSD tier settings of the replica's storage. */
  public TieredStorageConfig tieredStorage() {
    return new TieredStorageConfig(cacheBytes, pmHighWatermark, segmentDir, segmentBytes);
  }

  /** These settings with another cache budget. */
  public NodeSettings withCacheBytes(long bytes) {
    return new NodeSettings(
        nodeId,
        dataDir,
        engine,
        durability,
        pmBytes,
        chunkBytes,
        readHold,
        metricsPort,
        bytes,
        pmHighWatermark,
        segmentDir,
        segmentBytes,
        atomic,
        subscribeHeartbeat);
  }
}
