package io.flexlog.core.error;

/** The color does not exist in the cluster's topology. */
public class UnknownColorException extends FlexLogException {
  private static final long serialVersionUID = 1L;

  public UnknownColorException(String message) {
    super(message);
  }

  @Override
  public ErrorCode code() {
    return ErrorCode.UNKNOWN_COLOR;
  }
}
