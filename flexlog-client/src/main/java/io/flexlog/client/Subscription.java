package io.flexlog.client;

/**
 * An open subscription to a color (see {@link FlexLog#subscribe}). Closing it stops the streams
 * from the replicas; it is safe to call from any thread, also from inside a {@link RecordHandler}.
 */
public interface Subscription extends AutoCloseable {
  /** The color subscribed to. */
  String color();

  /**
   * The SN of the last record handed to the application; before the first, one less than the
   * starting SN (0 when subscribed from 0). Resubscribing from {@code lastSn() + 1} continues
   * exactly where this subscription stopped.
   */
  long lastSn();

  boolean isClosed();

  @Override
  void close();
}
