package io.flexlog.replica.storage;

/** The log cannot be opened, created or written: an I/O or media failure, never a full log. */
public class StorageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public StorageException(String message) {
    super(message);
  }

  public StorageException(String message, Throwable cause) {
    super(message, cause);
  }
}
