package io.flexlog.server.config;

import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
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
 */
public record NodeSettings(
    int nodeId,
    Path dataDir,
    String engine,
    DurabilityMode durability,
    long pmBytes,
    long chunkBytes,
    Duration readHold,
    int metricsPort) {
  public static final String AUTO = "auto";
  public static final long DEFAULT_PM_BYTES = 256L << 20;

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
  }

  /** The engine to open: {@code auto} resolves to llpl where libpmemobj loads, else mapped. */
  public String resolvedEngine() {
    return AUTO.equals(engine) ? StorageEngines.defaultEngine() : engine;
  }
}
