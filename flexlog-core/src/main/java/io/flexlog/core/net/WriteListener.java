package io.flexlog.core.net;

/**
 * Told once what became of one frame handed to a {@link QueuedConnection}: written to the socket,
 * or dropped (the connection failed, closed, or held too many frames while connecting). A request's
 * retry timer uses it to count its timeout from the write, and to send nothing again while an
 * earlier attempt still waits in the connection's outbound buffer
 * (docs/architecture.md#batched-append).
 *
 * <p>Threading: called on the connection's event loop, possibly from within the write call itself.
 */
@FunctionalInterface
public interface WriteListener {
  /**
   * @param written true once the frame left for the socket, false if it was dropped
   */
  void onWrite(boolean written);
}
