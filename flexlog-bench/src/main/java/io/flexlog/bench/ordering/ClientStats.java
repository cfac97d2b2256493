package io.flexlog.bench.ordering;

import org.HdrHistogram.Histogram;

/**
 * What one load client observed: its SNs in arrival order (checked to strictly increase), and the
 * latency of its measured requests.
 *
 * <p>Threading: not thread-safe; owned by whoever owns the client (its event loop, or its lock).
 * {@link #copy} gives the controlling thread a private snapshot.
 */
final class ClientStats {
  /** Latencies keep three significant digits; the histogram grows to any value. */
  private static final int SIGNIFICANT_DIGITS = 3;

  private final Histogram latencyNs;
  private long answered;
  private long measuredAnswers;
  private long orderViolations;
  private long lastSn = Long.MIN_VALUE;
  private long lastMeasuredAnswerNs = Long.MIN_VALUE;

  ClientStats() {
    this(new Histogram(SIGNIFICANT_DIGITS));
  }

  private ClientStats(Histogram latencyNs) {
    this.latencyNs = latencyNs;
  }

  /**
   * Records one answered request.
   *
   * @param sn the SN (or counter value) the request got
   * @param measured whether the request was issued during the measurement
   * @param latencyNs from issue to answer; ignored unless measured
   * @param nowNs when the answer arrived
   */
  void onAnswer(long sn, boolean measured, long latencyNs, long nowNs) {
    answered++;
    if (sn <= lastSn) {
      orderViolations++;
    }
    lastSn = sn;
    if (measured) {
      measuredAnswers++;
      this.latencyNs.recordValue(Math.max(0, latencyNs));
      lastMeasuredAnswerNs = nowNs;
    }
  }

  /** Every answered request, warm-up and readiness probe included. */
  long answered() {
    return answered;
  }

  long measuredAnswers() {
    return measuredAnswers;
  }

  /** Answers whose SN was not larger than the SN of the answer before them. */
  long orderViolations() {
    return orderViolations;
  }

  /** The last SN received, or {@link Long#MIN_VALUE} before the first. */
  long lastSn() {
    return lastSn;
  }

  /** When the last measured answer arrived, or {@link Long#MIN_VALUE} if none did. */
  long lastMeasuredAnswerNs() {
    return lastMeasuredAnswerNs;
  }

  Histogram latencyNs() {
    return latencyNs;
  }

  ClientStats copy() {
    ClientStats copy = new ClientStats(latencyNs.copy());
    copy.answered = answered;
    copy.measuredAnswers = measuredAnswers;
    copy.orderViolations = orderViolations;
    copy.lastSn = lastSn;
    copy.lastMeasuredAnswerNs = lastMeasuredAnswerNs;
    return copy;
  }
}
