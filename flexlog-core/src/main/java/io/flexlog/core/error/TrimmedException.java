package io.flexlog.core.error;

/** The requested SN lies at or below the color's trim point. */
public class TrimmedException extends FlexLogException {
  private static final long serialVersionUID = 1L;

  public TrimmedException(String message) {
    super(message);
  }

  @Override
  public ErrorCode code() {
    return ErrorCode.TRIMMED;
  }
}
