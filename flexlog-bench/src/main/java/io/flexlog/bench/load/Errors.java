package io.flexlog.bench.load;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** How the benchmarks name a failed operation in their reports. */
public final class Errors {
  private Errors() {}

  /**
   * {@code error} without the {@link CompletionException}s and {@link ExecutionException}s around
   * it.
   */
  public static Throwable unwrap(Throwable error) {
    Throwable cause = error;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  /** The unwrapped error as {@code SimpleClassName: message}, or the class name alone. */
  public static String describe(Throwable error) {
    Throwable cause = unwrap(error);
    String message = cause.getMessage();
    return cause.getClass().getSimpleName() + (message == null ? "" : ": " + message);
  }
}
