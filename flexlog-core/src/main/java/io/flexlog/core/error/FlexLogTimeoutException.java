package io.flexlog.core.error;

/**
 * An operation did not complete in time. For an append the outcome is unknown: the record may still
 * appear; retrying with the same token (which the client does) never creates a second one.
 */
public class FlexLogTimeoutException extends FlexLogException {
  private static final long serialVersionUID = 1L;

  public FlexLogTimeoutException(String message) {
    super(message);
  }
}
