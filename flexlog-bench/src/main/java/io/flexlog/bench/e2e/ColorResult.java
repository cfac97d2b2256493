package io.flexlog.bench.e2e;

import java.util.List;
import java.util.Optional;
import org.HdrHistogram.Histogram;

/**
 * What {@code bench e2e} measured for one color. Latencies in microseconds; only appends sent after
 * the warm-up count, and only their deliveries.
 *
 * @param role {@code root}, {@code leaf} or {@code inner}: where the color sits in the tree
 * @param measuredAppends measured appends acknowledged
 * @param errors appends that failed (warm-up included)
 * @param appendsPerSec measured acks over the time from the measurement's start to the last ack
 * @param deliveredPerSecPerSubscriber mean over subscribers of measured records delivered over the
 *     time from the measurement's start to the subscriber's last such delivery
 * @param appendLatencyUs send to ack
 * @param deliveryLatencyUs send to receipt by a subscriber, every subscriber's deliveries together
 * @param verifications one per subscriber
 * @param failure why the color could not be measured or verified at all
 */
record ColorResult(
    String color,
    String role,
    long measuredAppends,
    long errors,
    Optional<String> firstError,
    double appendsPerSec,
    double deliveredPerSecPerSubscriber,
    Histogram appendLatencyUs,
    Histogram deliveryLatencyUs,
    List<Verification> verifications,
    Optional<String> failure) {

  /** More failed appends than this share of all completed ones fail the run. */
  static final double MAX_ERROR_RATIO = 0.01;

  static ColorResult failed(String color, String role, String why) {
    return new ColorResult(
        color,
        role,
        0,
        0,
        Optional.empty(),
        0,
        0,
        new Histogram(3),
        new Histogram(3),
        List.of(),
        Optional.of(why));
  }

  boolean tooManyErrors() {
    long all = measuredAppends + errors;
    return all > 0 && errors > all * MAX_ERROR_RATIO;
  }

  boolean valid() {
    return failure.isEmpty()
        && measuredAppends > 0
        && !tooManyErrors()
        && !verifications.isEmpty()
        && verifications.stream().allMatch(Verification::passed);
  }
}
