package io.flexlog.bench.load;

import java.util.Optional;
import org.HdrHistogram.Histogram;

/**
 * What a load run measured: only appends issued after the warm-up count.
 *
 * @param successes appends that completed with an SN
 * @param errors appends that completed exceptionally
 * @param elapsedNs from the start of the measurement to the completion of its last append
 * @param latencyUs issue-to-completion latency of the successful appends, in microseconds
 * @param firstError the message of the first failed append, if any
 * @param clientsStillBusy clients whose last append had not completed when the run gave up waiting
 */
public record Measurement(
    long successes,
    long errors,
    long elapsedNs,
    Histogram latencyUs,
    Optional<String> firstError,
    int clientsStillBusy) {

  public long attempts() {
    return successes + errors;
  }
}
