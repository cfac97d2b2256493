package io.flexlog.server.control.quorum;

import com.google.protobuf.InvalidProtocolBufferException;
import io.flexlog.core.admin.TopologyProtos;
import io.flexlog.core.model.Topology;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Layout of the entries of the metadata quorum's Raft log and of their replies (big-endian). Every
 * entry proposes a whole topology; the state machine applies it only when the condition holds, so
 * that concurrent proposers (AddColor on two nodes, a bootstrap racing a change) never overwrite
 * each other: the loser gets the topology that won and retries on it.
 *
 * <pre>
 *  entry:  | magic 'FLXQ' (4) | kind (1) | expected version (8) | protobuf Topology (rest) |
 *  reply:  | outcome (1)      | protobuf Topology of the committed state (rest, may be empty) |
 * </pre>
 *
 * <p>Kinds: {@link Kind#BOOTSTRAP} applies only to an empty state (the first node to start seeds
 * the cluster's metadata from its cluster file); {@link Kind#REPLACE} applies only while the
 * committed version is the expected one, and the new version must be larger.
 */
public final class MetadataCommand {
  static final int MAGIC = 0x464C_5851; // "FLXQ"
  static final int KIND_OFFSET = 4;
  static final int EXPECTED_VERSION_OFFSET = 5;
  static final int HEADER_LENGTH = 13;

  /** What an entry asks for. */
  public enum Kind {
    BOOTSTRAP,
    REPLACE,
    /** A role's leader renews its lease ({@link RoleCommand}). */
    RENEW_ROLE,
    /** A node takes a role: new epoch, new leader, new topology version ({@link RoleCommand}). */
    TAKE_ROLE,
    /** A role's leader saves its join marks ({@link JoinMarkCommand}). */
    SAVE_MARKS;

    boolean isRole() {
      return this == RENEW_ROLE || this == TAKE_ROLE;
    }
  }

  /** What the state machine did with an entry. */
  public enum Outcome {
    /** The proposed topology is now the committed one. */
    APPLIED,
    /** The condition did not hold; the reply carries the committed topology. */
    CONFLICT
  }

  /** A decoded entry. */
  public record Entry(Kind kind, long expectedVersion, Topology topology) {}

  /** A decoded reply; {@code committed} is null while the state is empty. */
  public record Reply(Outcome outcome, Topology committed) {}

  private MetadataCommand() {}

  static byte[] encode(Kind kind, long expectedVersion, Topology topology) {
    byte[] body = TopologyProtos.toProto(topology).toByteArray();
    ByteBuffer buf = ByteBuffer.allocate(HEADER_LENGTH + body.length).order(ByteOrder.BIG_ENDIAN);
    buf.putInt(0, MAGIC);
    buf.put(KIND_OFFSET, (byte) kind.ordinal());
    buf.putLong(EXPECTED_VERSION_OFFSET, expectedVersion);
    buf.put(HEADER_LENGTH, body);
    return buf.array();
  }

  /**
   * The kind of an entry (topology or role).
   *
   * @throws IllegalArgumentException naming what is wrong with the entry's header
   */
  static Kind kind(ByteBuffer data) {
    ByteBuffer buf = data.duplicate().order(ByteOrder.BIG_ENDIAN);
    if (buf.remaining() < KIND_OFFSET + 1) {
      throw new IllegalArgumentException(
          "metadata entry of " + buf.remaining() + " bytes, shorter than its header");
    }
    if (buf.getInt(buf.position()) != MAGIC) {
      throw new IllegalArgumentException("metadata entry without the magic 'FLXQ'");
    }
    int kind = buf.get(buf.position() + KIND_OFFSET);
    if (kind < 0 || kind >= Kind.values().length) {
      throw new IllegalArgumentException("metadata entry of unknown kind " + kind);
    }
    return Kind.values()[kind];
  }

  /**
   * @throws IllegalArgumentException naming what is wrong with the entry
   */
  static Entry decode(ByteBuffer data) {
    ByteBuffer buf = data.duplicate().order(ByteOrder.BIG_ENDIAN);
    if (buf.remaining() < HEADER_LENGTH) {
      throw new IllegalArgumentException(
          "metadata entry of " + buf.remaining() + " bytes, shorter than its header");
    }
    int start = buf.position();
    if (buf.getInt(start) != MAGIC) {
      throw new IllegalArgumentException("metadata entry without the magic 'FLXQ'");
    }
    int kind = buf.get(start + KIND_OFFSET);
    if (kind < 0 || kind >= Kind.values().length) {
      throw new IllegalArgumentException("metadata entry of unknown kind " + kind);
    }
    long expected = buf.getLong(start + EXPECTED_VERSION_OFFSET);
    buf.position(start + HEADER_LENGTH);
    return new Entry(Kind.values()[kind], expected, topology(buf));
  }

  static byte[] encodeReply(Outcome outcome, Topology committed) {
    byte[] body = committed == null ? new byte[0] : TopologyProtos.toProto(committed).toByteArray();
    byte[] bytes = new byte[1 + body.length];
    bytes[0] = (byte) outcome.ordinal();
    System.arraycopy(body, 0, bytes, 1, body.length);
    return bytes;
  }

  static Reply decodeReply(ByteBuffer data) {
    ByteBuffer buf = data.duplicate();
    if (!buf.hasRemaining()) {
      throw new IllegalArgumentException("empty metadata reply");
    }
    int outcome = buf.get();
    if (outcome < 0 || outcome >= Outcome.values().length) {
      throw new IllegalArgumentException("metadata reply of unknown outcome " + outcome);
    }
    return new Reply(Outcome.values()[outcome], buf.hasRemaining() ? topology(buf) : null);
  }

  /** A query's reply: the committed topology, or empty bytes while there is none. */
  static byte[] encodeTopology(Topology topology) {
    return topology == null ? new byte[0] : TopologyProtos.toProto(topology).toByteArray();
  }

  static Topology decodeTopology(ByteBuffer data) {
    return data.hasRemaining() ? topology(data.duplicate()) : null;
  }

  private static Topology topology(ByteBuffer buf) {
    try {
      return TopologyProtos.fromProto(io.flexlog.admin.v1.Topology.parseFrom(buf));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("metadata entry without a valid topology: " + e, e);
    }
  }
}
