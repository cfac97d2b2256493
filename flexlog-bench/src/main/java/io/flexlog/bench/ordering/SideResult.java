package io.flexlog.bench.ordering;

import java.util.List;
import java.util.Optional;
import org.HdrHistogram.Histogram;

/**
 * What one side of the comparison measured, derived once so that the text and JSON reports cannot
 * disagree. Throughput counts SNs answered to requests issued during the measurement, over the time
 * from its start to the last such answer. Latencies are from issue to answer, in microseconds.
 *
 * @param label names the side and its variant on every output line, e.g. {@code flexlog loopback}
 * @param description how the side was set up, in words
 * @param sns measured answers
 * @param elapsedNs measured time
 * @param orderViolations answers whose SN did not exceed the previous SN of the same client
 * @param failure why the side failed, if it did; its numbers are then incomplete
 */
public record SideResult(
    String label,
    String description,
    long sns,
    long elapsedNs,
    double snsPerSec,
    double p50Us,
    double p99Us,
    double p999Us,
    double maxUs,
    long orderViolations,
    Optional<String> failure) {

  /** Combines the clients' numbers; {@code measureStartNs} is when the measurement began. */
  static SideResult of(
      String label,
      String description,
      List<ClientStats> clients,
      long measureStartNs,
      Optional<String> failure) {
    Histogram latencyNs = new Histogram(3);
    long sns = 0;
    long violations = 0;
    long end = Long.MIN_VALUE;
    for (ClientStats client : clients) {
      latencyNs.add(client.latencyNs());
      sns += client.measuredAnswers();
      violations += client.orderViolations();
      end = Math.max(end, client.lastMeasuredAnswerNs());
    }
    long elapsedNs = end == Long.MIN_VALUE ? 0 : Math.max(0, end - measureStartNs);
    boolean empty = latencyNs.getTotalCount() == 0;
    return new SideResult(
        label,
        description,
        sns,
        elapsedNs,
        elapsedNs == 0 ? 0 : sns / (elapsedNs / 1e9),
        empty ? 0 : latencyNs.getValueAtPercentile(50.0) / 1e3,
        empty ? 0 : latencyNs.getValueAtPercentile(99.0) / 1e3,
        empty ? 0 : latencyNs.getValueAtPercentile(99.9) / 1e3,
        empty ? 0 : latencyNs.getMaxValue() / 1e3,
        violations,
        failure);
  }

  /** A side that failed before it measured anything. */
  static SideResult failed(String label, String description, String why) {
    return new SideResult(label, description, 0, 0, 0, 0, 0, 0, 0, 0, Optional.of(why));
  }

  /** Whether the numbers can be trusted: no failure, at least one SN, SNs in order. */
  public boolean isValid() {
    return failure.isEmpty() && sns > 0 && orderViolations == 0;
  }
}
