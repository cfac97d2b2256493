package io.flexlog.client.internals;

import io.flexlog.core.model.Topology;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * What a subscription needs from the client around it: the topology, sending frames, routing of
 * answers by subscription id, metadata refreshes and the time. {@link ClientCore} implements it
 * over its connections; tests implement it in memory.
 *
 * <p>Threading: called on the client's event loop only.
 */
interface SubscriptionContext {
  Topology topology();

  ByteBufAllocator alloc();

  /** A subscription id unused on every connection of this client. */
  long newSubscriptionId();

  /** Routes frames carrying {@code id} to {@code stream} until {@link #unregister}. */
  void register(long id, ShardStream stream);

  void unregister(long id);

  /** Writes a frame to a node (connecting if needed); ownership of {@code frame} passes on. */
  void send(int nodeId, ByteBuf frame);

  /**
   * Fetches the topology again (at most one fetch at a time) and then runs {@code then} on the
   * loop, whether the fetch succeeded or not.
   */
  void refreshMetadata(Runnable then);

  /** Monotonic time in nanoseconds. */
  long nanoTime();
}
