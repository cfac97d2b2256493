package io.flexlog.core.util;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

/**
 * Capped exponential backoff for retries and reconnects: the first delay is {@code initial}, each
 * later one {@code multiplier} times the previous, never more than {@code max}, until {@link
 * #reset} (typically on success) starts over at {@code initial}.
 *
 * <p>With a jitter fraction {@code j > 0}, each delay is drawn uniformly from {@code [d * (1 - j),
 * d]} using the injected random generator, so that many clients that failed together do not retry
 * together; tests inject a seeded generator. Without jitter the delays are exact.
 *
 * <p>Threading: not thread-safe; one owner (an event loop, or callers holding a lock) uses it.
 */
public final class Backoff {
  private final long initialNs;
  private final long maxNs;
  private final double multiplier;
  private final double jitter;
  private final RandomGenerator random;
  private long currentNs;

  /** Exponential backoff without jitter. */
  public Backoff(Duration initial, Duration max, double multiplier) {
    this(initial, max, multiplier, 0.0, null);
  }

  /**
   * @param jitter the fraction in {@code [0, 1]} by which a delay may be shortened at random
   * @param random draws the jitter; may be null when {@code jitter} is 0
   */
  public Backoff(
      Duration initial, Duration max, double multiplier, double jitter, RandomGenerator random) {
    this.initialNs = initial.toNanos();
    this.maxNs = max.toNanos();
    if (initialNs <= 0 || maxNs < initialNs) {
      throw new IllegalArgumentException(
          "backoff needs 0 < initial <= max, got initial " + initial + ", max " + max);
    }
    if (!(multiplier >= 1.0)) {
      throw new IllegalArgumentException("backoff multiplier must be >= 1, got " + multiplier);
    }
    if (!(jitter >= 0.0 && jitter <= 1.0)) {
      throw new IllegalArgumentException("backoff jitter must be in [0, 1], got " + jitter);
    }
    this.multiplier = multiplier;
    this.jitter = jitter;
    this.random = jitter > 0 ? Objects.requireNonNull(random, "random") : random;
    this.currentNs = initialNs;
  }

  /** Exponential backoff from {@code initialMs} doubling to {@code maxMs}, without jitter. */
  public static Backoff doublingMs(long initialMs, long maxMs) {
    return new Backoff(Duration.ofMillis(initialMs), Duration.ofMillis(maxMs), 2.0);
  }

  /** The delay before the next attempt, and grows the one after it. */
  public long nextDelayNs() {
    long delayNs = currentNs;
    currentNs = grow(currentNs);
    return jittered(delayNs);
  }

  /** {@link #nextDelayNs()} in milliseconds (rounded down). */
  public long nextDelayMs() {
    return TimeUnit.NANOSECONDS.toMillis(nextDelayNs());
  }

  /**
   * The delay before retry number {@code attempt} (0 for the first retry) of a sequence that keeps
   * its own attempt count, without jitter: {@code min(max, initial * multiplier^attempt)}. Does not
   * change this backoff's state.
   */
  public long delayNs(int attempt) {
    if (attempt < 0) {
      throw new IllegalArgumentException("attempt must be >= 0, got " + attempt);
    }
    double delay = initialNs * Math.pow(multiplier, attempt);
    return delay >= maxNs ? maxNs : (long) delay;
  }

  /** Starts over at the initial delay, e.g. after a successful connect. */
  public void reset() {
    currentNs = initialNs;
  }

  private long grow(long delayNs) {
    double next = delayNs * multiplier;
    return next >= maxNs ? maxNs : (long) next;
  }

  private long jittered(long delayNs) {
    if (jitter == 0.0) {
      return delayNs;
    }
    return delayNs - (long) (delayNs * jitter * random.nextDouble());
  }
}
