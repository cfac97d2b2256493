package io.flexlog.core.error;

/** A request argument is out of its legal range. */
public class InvalidArgumentException extends FlexLogException {
  private static final long serialVersionUID = 1L;

  public InvalidArgumentException(String message) {
    super(message);
  }

  @Override
  public ErrorCode code() {
    return ErrorCode.INVALID_ARGUMENT;
  }
}
