package io.flexlog.replica.atomic;

import io.flexlog.core.error.InvalidArgumentException;
import java.time.Duration;

/**
 * Settings of the replica side of atomic appends (see {@link AtomicAppends}), validated once. A
 * node builds them from its cluster file's {@code atomic-*} keys, checked there first so that an
 * error names the key the user wrote (see {@code docs/configuration.md}); the dotted names below
 * are this record's own, used by its checks when it is built in code and in protocol messages.
 *
 * @param resultRetention how long a finished or aborted group is remembered in memory to answer a
 *     late COMMIT_GROUP ({@value #RESULT_RETENTION}); afterwards it gets ATOMIC_OUTCOME_UNKNOWN
 * @param resultRetentionCount the most finished or aborted groups remembered at once ({@value
 *     #RESULT_RETENTION_COUNT}); the oldest are forgotten first
 * @param abandonAfter how long after its last STAGE a group without END is durably aborted ({@value
 *     #ABANDON_AFTER})
 * @param forwardRetry the first delay before a forwarded member is sent again, doubled per attempt
 *     ({@value #FORWARD_RETRY}); also the period of the housekeeping timer
 * @param forwardRetryMax the cap of that delay ({@value #FORWARD_RETRY_MAX})
 */
public record AtomicConfig(
    Duration resultRetention,
    int resultRetentionCount,
    Duration abandonAfter,
    Duration forwardRetry,
    Duration forwardRetryMax) {
  public static final String RESULT_RETENTION = "atomic.result-retention";
  public static final String RESULT_RETENTION_COUNT = "atomic.result-retention-count";
  public static final String ABANDON_AFTER = "atomic.abandon-after";
  public static final String FORWARD_RETRY = "atomic.forward-retry";
  public static final String FORWARD_RETRY_MAX = "atomic.forward-retry-max";

  public static final Duration DEFAULT_RESULT_RETENTION = Duration.ofMinutes(10);
  public static final int DEFAULT_RESULT_RETENTION_COUNT = 100_000;
  public static final Duration DEFAULT_ABANDON_AFTER = Duration.ofSeconds(60);
  public static final Duration DEFAULT_FORWARD_RETRY = Duration.ofMillis(200);
  public static final Duration DEFAULT_FORWARD_RETRY_MAX = Duration.ofSeconds(10);

  public AtomicConfig {
    positive(resultRetention, RESULT_RETENTION);
    positive(abandonAfter, ABANDON_AFTER);
    positive(forwardRetry, FORWARD_RETRY);
    positive(forwardRetryMax, FORWARD_RETRY_MAX);
    if (resultRetentionCount <= 0) {
      throw new InvalidArgumentException(
          RESULT_RETENTION_COUNT + " must be > 0, got " + resultRetentionCount);
    }
    if (forwardRetryMax.compareTo(forwardRetry) < 0) {
      throw new InvalidArgumentException(
          FORWARD_RETRY_MAX
              + " ("
              + forwardRetryMax.toMillis()
              + " ms) must be at least "
              + FORWARD_RETRY
              + " ("
              + forwardRetry.toMillis()
              + " ms)");
    }
  }

  public static AtomicConfig defaults() {
    return new AtomicConfig(
        DEFAULT_RESULT_RETENTION,
        DEFAULT_RESULT_RETENTION_COUNT,
        DEFAULT_ABANDON_AFTER,
        DEFAULT_FORWARD_RETRY,
        DEFAULT_FORWARD_RETRY_MAX);
  }

  private static void positive(Duration value, String key) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new InvalidArgumentException(key + " must be > 0, got " + value);
    }
  }
}
