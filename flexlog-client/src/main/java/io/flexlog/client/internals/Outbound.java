package io.flexlog.client.internals;

import io.flexlog.core.net.WriteListener;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The one way a role sends: a frame to a node, written now and flushed once at the end of the
 * loop's turn (or by an explicit {@link #flush()}). {@link Connections} implements it over Netty
 * connections; role tests record what is sent.
 *
 * <p>Threading: the client's event loop only.
 */
interface Outbound {
  /** The allocator frames are encoded with. */
  ByteBufAllocator alloc();

  /**
   * Writes {@code frame} to node {@code nodeId}, connecting if needed. Ownership of the frame
   * passes on; a frame that cannot be written is released (the request's retry timer sends it
   * again).
   */
  void send(int nodeId, ByteBuf frame);

  /**
   * Writes a frame's header and then its payload (a separate buffer, sent without a copy) to node
   * {@code nodeId}: the same as two {@link #send} calls, which an implementation may do with one
   * lookup of the connection.
   */
  default void send(int nodeId, ByteBuf header, ByteBuf payload) {
    send(nodeId, header);
    send(nodeId, payload);
  }

  /**
   * Like {@link #send(int, ByteBuf)}, and tells {@code onWrite} once whether the frame was written
   * to the socket or dropped. A transport without an outbound buffer reports it written at once.
   */
  default void send(int nodeId, ByteBuf frame, WriteListener onWrite) {
    send(nodeId, frame);
    onWrite.onWrite(true);
  }

  /** Like {@link #send(int, ByteBuf, ByteBuf)}, and tells {@code onWrite} what became of both. */
  default void send(int nodeId, ByteBuf header, ByteBuf payload, WriteListener onWrite) {
    send(nodeId, header, payload);
    onWrite.onWrite(true);
  }

  /** Flushes every connection written to since the last flush. */
  void flush();

  /**
   * The state of the connection to {@code nodeId}, for error messages: connected, or why not
   * ({@code cannot connect: Connection refused}, ...).
   */
  default String connectionState(int nodeId) {
    return "unknown";
  }
}
