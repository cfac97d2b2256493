package io.flexlog.server.config;

import io.flexlog.core.config.ConfigException;
import io.flexlog.core.config.DataSize;
import io.flexlog.core.net.ConnectionLimits;
import io.flexlog.replica.atomic.AtomicConfig;
import io.flexlog.replica.replication.ReplicaLimits;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.replica.storage.tier.TieredStorageConfig;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The settings of one node process, from the {@code node:} section of a cluster file and
 * command-line overrides. Each component is named by its key in {@link ClusterFileDef}.
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
 *     {@code atomic-result-retention-count}, {@code atomic-abandon-after-ms}, {@code
 *     atomic-forward-retry-ms}, {@code atomic-forward-retry-max-ms})
 * @param subscribeHeartbeat how often idle subscriptions repeat their progress ({@code
 *     subscribe-heartbeat-ms})
 * @param connections the limits on accepted data-plane connections ({@code idle-timeout-ms}, {@code
 *     frame-timeout-ms}, {@code max-frame-bytes}, {@code max-connections}); null for the defaults,
 *     with frames bounded by the cluster's max-record-bytes
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
    Duration subscribeHeartbeat,
    ConnectionLimits connections) {
  public static final String AUTO = "auto";
  public static final long DEFAULT_PM_BYTES = 256L << 20;
  public static final String SEGMENTS_SUBDIR = "segments";

  /**
   * Checks every value with its key's rule in {@link ClusterFileDef}, naming the key of the cluster
   * file (values from a file were checked when it was parsed; this covers settings built in code).
   *
   * @throws io.flexlog.core.config.ConfigException naming the key, the value and the rule
   */
  public NodeSettings {
    ClusterFileDef.ENGINE.validate(engine);
    if (pmBytes < chunkBytes) {
      throw ConfigException.of(
          ClusterFileDef.PM_BYTES.name(),
          pmBytes,
          "pm-bytes ("
              + DataSize.format(pmBytes)
              + ") must be at least one chunk ("
              + DataSize.format(chunkBytes)
              + ")");
    }
    ClusterFileDef.READ_HOLD.validate(readHold);
    ClusterFileDef.METRICS_PORT.validate(metricsPort);
    ClusterFileDef.CACHE_BYTES.validate(cacheBytes);
    ClusterFileDef.PM_HIGH_WATERMARK.validate(pmHighWatermark);
    ClusterFileDef.SEGMENT_BYTES.validate(segmentBytes);
    if (segmentDir == null) {
      segmentDir = dataDir.resolve(SEGMENTS_SUBDIR);
    }
    if (atomic == null) {
      atomic = AtomicConfig.defaults();
    }
    if (subscribeHeartbeat == null) {
      subscribeHeartbeat = ReplicaLimits.DEFAULT_HEARTBEAT_INTERVAL;
    }
    ClusterFileDef.SUBSCRIBE_HEARTBEAT.validate(subscribeHeartbeat);
  }

  /** Settings with the default connection limits. */
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
      long segmentBytes,
      AtomicConfig atomic,
      Duration subscribeHeartbeat) {
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
        atomic,
        subscribeHeartbeat,
        null);
  }

  /** The connection limits, frames bounded for {@code maxRecordBytes} unless set. */
  public ConnectionLimits connectionLimits(int maxRecordBytes) {
    return connections != null
        ? connections
        : ConnectionLimits.defaults()
            .withMaxFrameBytes(ClusterFileDef.defaultMaxFrameBytes(maxRecordBytes));
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
        subscribeHeartbeat,
        connections);
  }
}
