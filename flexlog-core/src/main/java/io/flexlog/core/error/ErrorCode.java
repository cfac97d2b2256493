package io.flexlog.core.error;

/**
 * Codes of errors that cross the wire. Each maps to one typed exception on the client side (see
 * {@link FlexLogException#fromWire(ErrorCode, String)}).
 */
public enum ErrorCode {
  /** A malformed frame; the sender's connection is closed. */
  PROTOCOL(1),
  UNKNOWN_COLOR(2),
  RECORD_TOO_LARGE(3),
  /** The replica's log has no space left for the record. */
  STORAGE_FULL(4),
  /** The node is starting or recovering; retry later. */
  NOT_READY(5),
  TRIMMED(6),
  /** The request named a shard that this node does not host. */
  UNKNOWN_SHARD(7),
  /** A bug or an I/O failure on the node; the message says which. */
  INTERNAL(8),
  INVALID_ARGUMENT(9),
  /** AddColor: a color of that name exists with other settings. */
  COLOR_EXISTS(20),
  /** AddColor: the cluster has fewer replica nodes than the requested replication factor. */
  NOT_ENOUGH_NODES(21),
  /**
   * Admin calls: the metadata quorum has no leader that a majority follows (too many of its nodes
   * are down or unreachable); nothing was changed, or the message says that it may have been.
   */
  METADATA_UNAVAILABLE(22),
  /**
   * Atomic append: the replica of the broker shard durably aborted the group (it was abandoned
   * before its commit) and will never write its END marker.
   */
  GROUP_ABORTED(30),
  /**
   * Atomic append: the group may have been placed, but whoever answers cannot tell (it forgot the
   * group after its retention, or the client gave up waiting); the group may still appear, all
   * records or none.
   */
  ATOMIC_OUTCOME_UNKNOWN(31),
  /**
   * Atomic append: forwarding a member to its color failed permanently (its color or shard is gone
   * from the topology, or the target refused it for good); the message names the member.
   */
  ATOMIC_MEMBER_FAILED(32);

  private final int code;

  ErrorCode(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  /** The code for a wire value; unknown values map to {@link #INTERNAL}. */
  public static ErrorCode of(int code) {
    for (ErrorCode value : values()) {
      if (value.code == code) {
        return value;
      }
    }
    return INTERNAL;
  }
}
