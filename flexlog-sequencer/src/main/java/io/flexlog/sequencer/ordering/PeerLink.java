package io.flexlog.sequencer.ordering;

import java.util.Locale;

/**
 * The ordering service's view of one connection: who is at the other end once known (a replica
 * node, a child sequencer node that connected to us, or the parent sequencer node we connected to)
 * and the per-turn bookkeeping that lets the broadcaster write each frame once per connection and
 * flush each connection once per turn.
 *
 * <p>Threading: owned by the node's event loop.
 */
public final class PeerLink {
  static final int UNKNOWN = -1;

  /** What the other end of the connection is. */
  enum Kind {
    /** An inbound connection that has not said who it is yet. */
    UNIDENTIFIED,
    REPLICA,
    CHILD,
    PARENT
  }

  private final Outbound out;
  private Kind kind;
  private int peerNodeId = UNKNOWN;
  private int incarnation;
  private boolean dirty;
  private long watermarkStamp = -1;

  private PeerLink(Outbound out, Kind kind, int peerNodeId) {
    this.out = out;
    this.kind = kind;
    this.peerNodeId = peerNodeId;
  }

  /** A connection a peer opened to this node. */
  static PeerLink inbound(Outbound out) {
    return new PeerLink(out, Kind.UNIDENTIFIED, UNKNOWN);
  }

  /** The connection this node opened to its parent node {@code parentNodeId}. */
  static PeerLink toParent(Outbound out, int parentNodeId) {
    return new PeerLink(out, Kind.PARENT, parentNodeId);
  }

  Outbound out() {
    return out;
  }

  Kind kind() {
    return kind;
  }

  /** The replica node id from HELLO (or the first ORDER_REQUEST), or {@link #UNKNOWN}. */
  int replicaNodeId() {
    return kind == Kind.REPLICA ? peerNodeId : UNKNOWN;
  }

  boolean isReplica() {
    return kind == Kind.REPLICA;
  }

  boolean isUnidentified() {
    return kind == Kind.UNIDENTIFIED;
  }

  void identifyReplica(int replicaNodeId) {
    this.kind = Kind.REPLICA;
    this.peerNodeId = replicaNodeId;
  }

  void identifyChild(int childNodeId, int incarnation) {
    this.kind = Kind.CHILD;
    this.peerNodeId = childNodeId;
    this.incarnation = incarnation;
  }

  /** The peer's node id: replica, child or parent; {@link #UNKNOWN} before identification. */
  int peerNodeId() {
    return peerNodeId;
  }

  /** A child's incarnation (its epoch at start), from SEQUENCER_HELLO. */
  int incarnation() {
    return incarnation;
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
    out.flush();
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
    return kind.name().toLowerCase(Locale.ROOT) + " " + peerNodeId + " via " + out;
  }
}
