package io.flexlog.replica.replication;

import io.netty.buffer.ByteBuf;

/**
 * How a replica node sends frames to other replica nodes (TOKEN_SYNC, forwarded atomic members);
 * answers come back through the node's peer connections. Implemented over TCP by {@code PeerLinks};
 * tests capture frames instead. Confined to the replica's event loop.
 */
public interface PeerGateway {
  /** Writes a frame to a replica node (ownership passes); sent on the next {@link #flush()}. */
  void send(int nodeId, ByteBuf frame);

  void flush();
}
