package io.flexlog.bench.ordering;

/** A load could not run or broke down; the message says which client and why. */
final class LoadFailure extends Exception {
  private static final long serialVersionUID = 1L;

  LoadFailure(String message) {
    super(message);
  }

  LoadFailure(String message, Throwable cause) {
    super(message, cause);
  }
}
