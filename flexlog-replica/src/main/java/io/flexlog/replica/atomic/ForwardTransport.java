package io.flexlog.replica.atomic;

/**
 * How a replica of a broker shard sends APPEND frames to the replicas of target shards, acting as a
 * client. Implemented over TCP by {@link PeerLinks}; tests capture frames instead. Loop-confined.
 */
public interface ForwardTransport {
  /** Writes a frame to a replica node (ownership passes); sent on the next {@link #flush()}. */
  void send(int nodeId, io.netty.buffer.ByteBuf frame);

  void flush();
}
