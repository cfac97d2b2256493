package io.flexlog.core.error;

/** The record is larger than the cluster's max-record-bytes; the connection stays usable. */
public class RecordTooLargeException extends FlexLogException {
  private static final long serialVersionUID = 1L;

  public RecordTooLargeException(String message) {
    super(message);
  }

  @Override
  public ErrorCode code() {
    return ErrorCode.RECORD_TOO_LARGE;
  }
}
