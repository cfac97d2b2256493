package io.flexlog.bench.storage;

import org.HdrHistogram.Histogram;

/**
 * Percentiles of one operation's latency, in microseconds, from a histogram recorded in
 * nanoseconds.
 *
 * @param count operations recorded
 */
public record LatencySummary(
    long count, double meanUs, double p50Us, double p99Us, double p999Us, double maxUs) {

  public static LatencySummary of(Histogram nanos) {
    if (nanos.getTotalCount() == 0) {
      return new LatencySummary(0, 0, 0, 0, 0, 0);
    }
    return new LatencySummary(
        nanos.getTotalCount(),
        nanos.getMean() / 1e3,
        nanos.getValueAtPercentile(50.0) / 1e3,
        nanos.getValueAtPercentile(99.0) / 1e3,
        nanos.getValueAtPercentile(99.9) / 1e3,
        nanos.getMaxValue() / 1e3);
  }
}
