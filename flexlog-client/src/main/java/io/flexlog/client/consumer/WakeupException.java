package io.flexlog.client.consumer;

import io.flexlog.core.error.FlexLogException;

/** Thrown by a blocking consumer call that {@link FlexLogConsumer#wakeup} interrupted. */
public class WakeupException extends FlexLogException {
  public WakeupException(String message) {
    super(message);
  }

  public WakeupException(String message, Throwable cause) {
    super(message, cause);
  }
}
