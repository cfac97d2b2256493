package io.flexlog.core.error;

/** A node is starting or recovering; the operation may be retried. */
public class NotReadyException extends FlexLogException {
  private static final long serialVersionUID = 1L;

  public NotReadyException(String message) {
    super(message);
  }

  @Override
  public ErrorCode code() {
    return ErrorCode.NOT_READY;
  }
}
