package io.flexlog.core.error;

/** A frame broke the wire protocol; the connection that carried it is closed. */
public class ProtocolException extends FlexLogException {
  private static final long serialVersionUID = 1L;

  public ProtocolException(String message) {
    super(message);
  }

  @Override
  public ErrorCode code() {
    return ErrorCode.PROTOCOL;
  }
}
