package io.flexlog.replica.replication;

import java.time.Duration;

/**
 * The limits the replication engine enforces, validated once.
 *
 * @param maxRecordBytes the largest payload accepted; larger ones get RECORD_TOO_LARGE
 * @param readHold how long a read that cannot be decided yet is held before answering RETRY
 * @param dedupWindow how many committed tokens are remembered to answer retried appends
 */
public record ReplicaLimits(int maxRecordBytes, Duration readHold, int dedupWindow) {
  public static final int DEFAULT_MAX_RECORD_BYTES = 1 << 20;
  public static final Duration DEFAULT_READ_HOLD = Duration.ofMillis(1);
  public static final int DEFAULT_DEDUP_WINDOW = 1 << 20;

  public ReplicaLimits {
    if (maxRecordBytes <= 0) {
      throw new IllegalArgumentException("max.record.bytes must be > 0: " + maxRecordBytes);
    }
    if (readHold.isNegative() || readHold.isZero()) {
      throw new IllegalArgumentException("read.hold must be > 0: " + readHold);
    }
    if (dedupWindow <= 0) {
      throw new IllegalArgumentException("dedup.window must be > 0: " + dedupWindow);
    }
  }

  public static ReplicaLimits defaults() {
    return new ReplicaLimits(DEFAULT_MAX_RECORD_BYTES, DEFAULT_READ_HOLD, DEFAULT_DEDUP_WINDOW);
  }
}
