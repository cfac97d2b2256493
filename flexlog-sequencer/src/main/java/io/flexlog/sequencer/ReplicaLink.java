package io.flexlog.sequencer;

import io.netty.channel.Channel;

/**
 * The sequencer's view of one inbound connection: which replica node it speaks for (once known) and
 * the per-turn bookkeeping that lets the broadcaster write each frame once per connection and flush
 * each connection once per turn.
 *
 * <p>Threading: owned by the node's event loop.
 */
final class ReplicaLink {
  static final int UNKNOWN_REPLICA = -1;

  private final Channel channel;
  private int replicaNodeId = UNKNOWN_REPLICA;
  private boolean dirty;
  private long watermarkStamp = -1;

  ReplicaLink(Channel channel) {
    this.channel = channel;
  }

  Channel channel() {
    return channel;
  }

  /** The replica node id from HELLO (or the first ORDER_REQUEST), or {@link #UNKNOWN_REPLICA}. */
  int replicaNodeId() {
    return replicaNodeId;
  }

  boolean isIdentified() {
    return replicaNodeId != UNKNOWN_REPLICA;
  }

  void identify(int replicaNodeId) {
    this.replicaNodeId = replicaNodeId;
  }

  /** Marks that frames were written and a flush is owed; returns true on the first mark. */
  boolean markDirty() {
    if (dirty) {
      return false;
    }
    dirty = true;
    return true;
  }

  void flush() {
    dirty = false;
    channel.flush();
  }

  /** True the first time it is called with a given stamp: one watermark per color per turn. */
  boolean claimWatermark(long stamp) {
    if (watermarkStamp == stamp) {
      return false;
    }
    watermarkStamp = stamp;
    return true;
  }

  @Override
  public String toString() {
    return "replica " + replicaNodeId + " at " + channel.remoteAddress();
  }
}
