package io.flexlog.replica.replication;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * One connection as the replica's protocol state machines see it: a client, or another replica
 * node. A running node wraps a Netty channel; the deterministic simulation an in-memory queue. The
 * state machines never see the channel itself, so they run without sockets.
 *
 * <p>Frames written to one connection arrive in write order (FIFO). Threading: every method is
 * called on the replica's event loop.
 */
public interface Connection {
  /** The allocator to build frames for this connection with. */
  ByteBufAllocator alloc();

  /**
   * Queues a frame without flushing it; takes ownership of {@code frame} (a closed connection
   * releases it).
   */
  void write(ByteBuf frame);

  /** Sends everything written since the last flush. */
  void flush();

  /** False once the connection has closed; nothing written after that arrives. */
  boolean isActive();

  /** False while the connection's outbound buffer is above its high-water mark (back-pressure). */
  boolean isWritable();

  /** Closes the connection; its owner reports the close to the state machines later. */
  void close();
}
