package io.flexlog.sequencer.ordering;

import io.netty.buffer.ByteBuf;

/**
 * The sending side of one connection: a Netty channel in a running node, an in-memory queue in the
 * deterministic simulation. Frames written to one outbound arrive in write order (FIFO), which is
 * what lets a watermark cover the responses written before it.
 */
public interface Outbound {
  /** Queues a frame without flushing it; takes ownership of {@code frame}. */
  void write(ByteBuf frame);

  /** Sends everything written since the last flush. */
  void flush();

  /** Closes the connection; its owner reports the close to the ordering service later. */
  void close();
}
