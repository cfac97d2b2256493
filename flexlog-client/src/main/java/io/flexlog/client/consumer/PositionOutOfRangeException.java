package io.flexlog.client.consumer;

import io.flexlog.core.error.FlexLogException;

/** A position that is at or below the trim point of its color, with auto.offset.reset none. */
public class PositionOutOfRangeException extends FlexLogException {
  public PositionOutOfRangeException(String message) {
    super(message);
  }

  public PositionOutOfRangeException(String message, Throwable cause) {
    super(message, cause);
  }
}
