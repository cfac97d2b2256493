package io.flexlog.client.consumer;

import io.flexlog.core.error.FlexLogException;

/** The internal color that holds a group's log does not exist and the consumer cannot create it. */
public class GroupColorMissingException extends FlexLogException {
  public GroupColorMissingException(String message) {
    super(message);
  }

  public GroupColorMissingException(String message, Throwable cause) {
    super(message, cause);
  }
}
