package io.flexlog.replica.replication;

import java.time.Duration;

/**
 * The limits the replication engine enforces, validated once. A node builds them from its cluster
 * file ({@code max-record-bytes}, {@code read-hold-ms}, {@code subscribe-heartbeat-ms}), checked
 * there first with the user's key names (see {@code docs/configuration.md}).
 *
 * @param maxRecordBytes the largest payload accepted; larger ones get RECORD_TOO_LARGE
 * @param readHold how long a read that cannot be decided yet is held before answering RETRY
 * @param dedupWindow how many of each client session's newest committed sequences are remembered to
 *     answer retried appends (see {@link io.flexlog.core.util.TokenWindow})
 * @param heartbeatInterval {@code subscribe.heartbeat-interval}: a subscription that sent nothing
 *     for this long gets a SUBSCRIBE_PROGRESS repeating its progress, so that its subscriber can
 *     tell an idle replica from a dead link (docs/architecture.md#subscribe)
 */
public record ReplicaLimits(
    int maxRecordBytes, Duration readHold, int dedupWindow, Duration heartbeatInterval) {
  public static final int DEFAULT_MAX_RECORD_BYTES = 1 << 20;
  public static final Duration DEFAULT_READ_HOLD = Duration.ofMillis(1);
  public static final int DEFAULT_DEDUP_WINDOW = 1 << 20;
  public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(1);

  /** The shortest heartbeat interval: the engine's heartbeat timer ticks four times as often. */
  public static final Duration MIN_HEARTBEAT_INTERVAL = Duration.ofMillis(4);

  public ReplicaLimits {
    if (maxRecordBytes <= 0) {
      throw new IllegalArgumentException("max-record-bytes must be > 0: " + maxRecordBytes);
    }
    if (readHold.isNegative() || readHold.isZero()) {
      throw new IllegalArgumentException("read.hold must be > 0: " + readHold);
    }
    if (dedupWindow <= 0) {
      throw new IllegalArgumentException("dedup.window must be > 0: " + dedupWindow);
    }
    if (heartbeatInterval.compareTo(MIN_HEARTBEAT_INTERVAL) < 0) {
      throw new IllegalArgumentException(
          "subscribe.heartbeat-interval must be at least "
              + MIN_HEARTBEAT_INTERVAL.toMillis()
              + " ms: "
              + heartbeatInterval);
    }
  }

  /** With the default heartbeat interval. */
  public ReplicaLimits(int maxRecordBytes, Duration readHold, int dedupWindow) {
    this(maxRecordBytes, readHold, dedupWindow, DEFAULT_HEARTBEAT_INTERVAL);
  }

  public static ReplicaLimits defaults() {
    return new ReplicaLimits(
        DEFAULT_MAX_RECORD_BYTES,
        DEFAULT_READ_HOLD,
        DEFAULT_DEDUP_WINDOW,
        DEFAULT_HEARTBEAT_INTERVAL);
  }
}
