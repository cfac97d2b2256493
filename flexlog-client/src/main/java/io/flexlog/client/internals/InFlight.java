package io.flexlog.client.internals;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A request in flight under the client's retry rule: past {@link #attemptDeadlineNs} (one request
 * timeout after its last send) it is sent again, past {@link #deliveryDeadlineNs} it fails. The
 * appends and atomic groups apply the rule on each tick with {@link #resendOrExpire}.
 *
 * <p>Threading: loop-confined.
 */
abstract class InFlight {
  final long deliveryDeadlineNs;
  long attemptDeadlineNs;

  InFlight(long deliveryDeadlineNs) {
    this.deliveryDeadlineNs = deliveryDeadlineNs;
  }

  /**
   * Applies the retry rule at {@code nowNs}: sends again each request past its attempt deadline,
   * and returns those past their delivery deadline (null when none), for the caller to fail once
   * the scan is over, since failing one removes it from {@code requests}.
   */
  static <T extends InFlight> List<T> resendOrExpire(
      Iterable<T> requests, long nowNs, Consumer<? super T> resend) {
    List<T> expired = null;
    for (T request : requests) {
      if (nowNs - request.deliveryDeadlineNs > 0) {
        expired = expired == null ? new ArrayList<>() : expired;
        expired.add(request);
      } else if (nowNs - request.attemptDeadlineNs > 0) {
        resend.accept(request);
      }
    }
    return expired;
  }
}
