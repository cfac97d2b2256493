package io.flexlog.core.error;

/** A replica's log has no room for the record. */
public class StorageFullException extends FlexLogException {
  private static final long serialVersionUID = 1L;

  public StorageFullException(String message) {
    super(message);
  }

  @Override
  public ErrorCode code() {
    return ErrorCode.STORAGE_FULL;
  }
}
