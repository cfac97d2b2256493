package io.flexlog.bench.report;

import io.flexlog.bench.load.Measurement;
import java.util.Optional;
import org.HdrHistogram.Histogram;

/**
 * The numbers an append benchmark reports, derived once from a {@link Measurement} so that the text
 * and JSON outputs cannot disagree. Throughput counts successful appends over the measured time; MB
 * are 10^6 bytes of payload. Latencies are in microseconds, from issue to completion, of successful
 * appends only.
 */
public record BenchReport(
    RunSetup setup,
    long elapsedNs,
    long appends,
    long errors,
    double appendsPerSec,
    double megabytesPerSec,
    long p50Us,
    long p99Us,
    long p999Us,
    long maxUs,
    Optional<String> firstError) {

  /** The share of failed appends above which a run fails. */
  public static final double MAX_ERROR_RATIO = 0.01;

  public static BenchReport of(RunSetup setup, Measurement m) {
    double seconds = m.elapsedNs() / 1e9;
    double appendsPerSec = seconds > 0 ? m.successes() / seconds : 0;
    double megabytesPerSec = appendsPerSec * setup.recordBytes() / 1e6;
    Histogram h = m.latencyUs();
    boolean empty = h.getTotalCount() == 0;
    return new BenchReport(
        setup,
        m.elapsedNs(),
        m.successes(),
        m.errors(),
        appendsPerSec,
        megabytesPerSec,
        empty ? 0 : h.getValueAtPercentile(50.0),
        empty ? 0 : h.getValueAtPercentile(99.0),
        empty ? 0 : h.getValueAtPercentile(99.9),
        empty ? 0 : h.getMaxValue(),
        m.firstError());
  }

  /** Failed appends as a share of all measured appends; 0 when none were measured. */
  public double errorRatio() {
    long attempts = appends + errors;
    return attempts == 0 ? 0 : (double) errors / attempts;
  }

  /** Whether more than {@link #MAX_ERROR_RATIO} of the appends failed. */
  public boolean tooManyErrors() {
    return errorRatio() > MAX_ERROR_RATIO;
  }
}
