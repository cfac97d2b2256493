package io.flexlog.client.internals;

import io.flexlog.client.RecordStream;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Reads a client subscription's loop-confined state for the end-to-end tests in {@code
 * io.flexlog.server}: it lives in the subscription's package because that state is package-private.
 */
public final class SubscriptionProbe {
  private SubscriptionProbe() {}

  /**
   * SUBSCRIBE_PROGRESS frames (heartbeats included) the subscription has heard per shard; see
   * {@link ClientSubscription#progressFramesHeard()}.
   *
   * @param stream a stream opened by {@code FlexLog.subscribe(color, fromSn)}
   */
  public static long[] progressFramesHeard(RecordStream stream, Duration timeout) throws Exception {
    return ((ClientSubscription) stream)
        .progressFramesHeard()
        .get(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }
}
