package io.flexlog.bench.e2e;

import io.flexlog.bench.load.Errors;
import java.util.List;
import java.util.Optional;

/**
 * What one subscriber got, checked against the acknowledged appends of its color: every acked
 * record exactly once, in SN order, carrying the identity (producer, sequence number) of the append
 * that was acknowledged with that SN.
 *
 * @param matched records whose SN is the one their append was acknowledged with
 * @param acked appends acknowledged in the run (warm-up included)
 * @param unacked records of appends that failed or timed out on the client (their outcome was
 *     unknown, so appearing is legal)
 * @param mismatched records of an acknowledged append at another SN than the acknowledged one (a
 *     duplicate, or a wrong payload)
 * @param orderViolations records whose SN was not larger than the previous one's
 * @param error the subscription's error, if it ended with one
 */
record Verification(
    long matched,
    long acked,
    long unacked,
    long mismatched,
    long orderViolations,
    Optional<String> error) {

  boolean passed() {
    return error.isEmpty() && matched == acked && mismatched == 0 && orderViolations == 0;
  }

  long missing() {
    return acked - matched;
  }

  /** Checks {@code subscriber}, which must have ended, against the producers' acked SNs. */
  static Verification of(Subscriber subscriber, List<Producer> producers) {
    long acked = 0;
    for (Producer producer : producers) {
      acked += producer.acked().count();
    }
    long matched = 0;
    long unacked = 0;
    long mismatched = 0;
    for (int i = 0; i < subscriber.received(); i++) {
      int p = subscriber.producerAt(i);
      if (p < 0 || p >= producers.size()) {
        mismatched++;
        continue;
      }
      long expected = producers.get(p).acked().snOf(subscriber.sequenceAt(i));
      if (expected == subscriber.snAt(i)) {
        matched++;
      } else if (expected == AckedSns.NOT_ACKED) {
        unacked++;
      } else {
        mismatched++;
      }
    }
    Optional<String> error = Optional.ofNullable(subscriber.error()).map(Errors::describe);
    return new Verification(
        matched, acked, unacked, mismatched, subscriber.orderViolations(), error);
  }

  /** One line for the report. */
  String describe() {
    if (passed()) {
      return "all " + acked + " acked records exactly once, in SN order";
    }
    StringBuilder out = new StringBuilder("FAILED:");
    if (missing() != 0) {
      out.append(' ')
          .append(missing())
          .append(" of ")
          .append(acked)
          .append(" acked records missing;");
    }
    if (mismatched != 0) {
      out.append(' ').append(mismatched).append(" records at another SN than acked (duplicates?);");
    }
    if (orderViolations != 0) {
      out.append(' ').append(orderViolations).append(" records out of SN order;");
    }
    error.ifPresent(e -> out.append(" subscription error: ").append(e).append(';'));
    out.setLength(out.length() - 1);
    return out.toString();
  }
}
