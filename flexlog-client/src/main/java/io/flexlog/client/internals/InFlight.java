package io.flexlog.client.internals;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.Retention;
import io.flexlog.core.net.WriteListener;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A request in flight under the client's retry rule (docs/architecture.md#batched-append): one
 * request timeout after the last frame of its attempt was written to the network it is sent again,
 * and past {@link #deliveryDeadlineNs} it fails. While a frame of an attempt still waits in a
 * connection's outbound buffer the request is not sent again: a re-send then could only queue
 * another copy of the same records behind the first, and a stuck connection would collect one copy
 * per request timeout.
 *
 * <p>A role starts each attempt with {@link #startAttempt}, counts each frame it sends for it in
 * {@link #unwrittenFrames} and hands the request itself to the transport as the frame's {@link
 * WriteListener}; it applies the rule on each tick with {@link #resendOrExpire}.
 *
 * <p>Threading: loop-confined.
 */
abstract class InFlight implements WriteListener {
  /** The clock and request timeout of a role's attempts. */
  record AttemptTimer(NanoClock clock, long requestTimeoutNs) {
    long deadline() {
      return clock.nanoTime() + requestTimeoutNs;
    }
  }

  long deliveryDeadlineNs;

  /** How long a request to a retained color may retry when that is below the delivery timeout. */
  private long retentionHorizonNs;

  long attemptDeadlineNs;
  int attempts;

  /** Frames of this request handed to the transport and not yet written or dropped. */
  int unwrittenFrames;

  private AttemptTimer timer;

  InFlight(long deliveryDeadlineNs) {
    this.deliveryDeadlineNs = deliveryDeadlineNs;
  }

  /**
   * Retries an append to a color with a {@code retention.ms} for at most half of it
   * (docs/architecture.md#retention, "Retries"): a retry that reached a replica which missed the
   * record after retention removed it everywhere would be stored there as a new record.
   *
   * @param deliveryTimeoutNs the client's {@code delivery.timeout.ms}, counted from when the
   *     request was made (its delivery deadline)
   */
  final void limitToRetention(Color color, long deliveryTimeoutNs) {
    long ms = color.retention().ms();
    if (ms == Retention.KEEP) {
      return;
    }
    long horizonNs = TimeUnit.MILLISECONDS.toNanos(ms) / 2;
    if (horizonNs < deliveryTimeoutNs) {
      deliveryDeadlineNs -= deliveryTimeoutNs - horizonNs;
      retentionHorizonNs = horizonNs;
    }
  }

  /** How long the request retried before it failed, for the timeout's message. */
  final String retriedFor(long deliveryTimeoutNs) {
    return retentionHorizonNs == 0
        ? deliveryTimeoutNs / 1_000_000 + " ms"
        : retentionHorizonNs / 1_000_000 + " ms (half the color's retention.ms)";
  }

  /** Starts an attempt: its request timeout counts from now, and again from each write. */
  final void startAttempt(AttemptTimer attemptTimer) {
    timer = attemptTimer;
    attempts++;
    attemptDeadlineNs = attemptTimer.deadline();
  }

  @Override
  public final void onWrite(boolean written) {
    unwrittenFrames--;
    if (written) {
      attemptDeadlineNs = Math.max(attemptDeadlineNs, timer.deadline());
    }
  }

  /**
   * Brings the next attempt forward to {@code atNs} if that is sooner: a connection this request
   * waits on was lost, so no answer will come on it (docs/architecture.md#append, "Failures").
   */
  final void resendBy(long atNs) {
    if (atNs - attemptDeadlineNs < 0) {
      attemptDeadlineNs = atNs;
    }
  }

  /**
   * Applies the retry rule at {@code nowNs}: sends again each request whose frames were all written
   * (or dropped) and whose attempt deadline passed, and returns those past their delivery deadline
   * (null when none), for the caller to fail once the scan is over, since failing one removes it
   * from {@code requests}.
   */
  static <T extends InFlight> List<T> resendOrExpire(
      Iterable<T> requests, long nowNs, Consumer<? super T> resend) {
    List<T> expired = null;
    for (T request : requests) {
      if (nowNs - request.deliveryDeadlineNs > 0) {
        expired = expired == null ? new ArrayList<>() : expired;
        expired.add(request);
      } else if (request.unwrittenFrames == 0 && nowNs - request.attemptDeadlineNs > 0) {
        resend.accept(request);
      }
    }
    return expired;
  }
}
