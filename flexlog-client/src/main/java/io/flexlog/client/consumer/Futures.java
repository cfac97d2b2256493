package io.flexlog.client.consumer;

import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.FlexLogTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Waiting for the consumer's futures, with its errors. */
final class Futures {
  private Futures() {}

  /**
   * Waits up to {@code timeout}.
   *
   * @throws FlexLogException the future's failure as it is; FlexLogTimeoutException naming {@code
   *     what}; WakeupException if interrupted
   */
  static void await(CompletableFuture<?> future, Duration timeout, String what) {
    try {
      future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new WakeupException("interrupted while " + what, e);
    } catch (ExecutionException e) {
      throw unwrap(e);
    } catch (TimeoutException e) {
      throw new FlexLogTimeoutException(
          "timed out after " + timeout.toMillis() + " ms while " + what);
    }
  }

  /** Waits until {@code deadlineNs} at most and ignores the outcome (closing anyway). */
  static void quietly(CompletableFuture<?> future, long deadlineNs) {
    try {
      future.get(Math.max(0, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // closing anyway: a rejected commit or a member that is then removed by timeout
    }
  }

  static FlexLogException unwrap(Throwable e) {
    Throwable cause =
        e instanceof ExecutionException || e instanceof CompletionException ? e.getCause() : e;
    if (cause instanceof FlexLogException f) {
      return f;
    }
    return new FlexLogException(String.valueOf(cause), cause);
  }
}
