package io.flexlog.client.internals;

/**
 * The client's monotonic time, injected into every role so that deadlines (request timeouts,
 * retries, group and trim timeouts, subscription liveness) can be driven by a test's clock.
 *
 * <p>Threading: {@link #SYSTEM} may be read from any thread; a role reads its clock on the client's
 * event loop, and in the application thread only to stamp a request's deadline.
 */
@FunctionalInterface
interface NanoClock {
  /** The running client's clock: {@link System#nanoTime()}. */
  NanoClock SYSTEM = System::nanoTime;

  /** Monotonic time in nanoseconds; only differences are meaningful. */
  long nanoTime();
}
