package io.flexlog.client.consumer;

import io.flexlog.core.error.FlexLogException;

/**
 * A color shard has no committed position and auto.offset.reset is none (or its end could not be
 * found).
 */
public class NoPositionException extends FlexLogException {
  public NoPositionException(String message) {
    super(message);
  }

  public NoPositionException(String message, Throwable cause) {
    super(message, cause);
  }
}
