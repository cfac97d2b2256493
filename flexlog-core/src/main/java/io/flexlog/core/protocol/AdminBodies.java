package io.flexlog.core.protocol;

import io.flexlog.core.error.ProtocolException;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Fields the admin frames (codes 90-97, docs/protocol.md#admin-frames) share: strings (an unsigned
 * 2-byte length and UTF-8 bytes), counted lists, the color entry:
 *
 * <pre>
 *  id (4) | sequencer node id (4) | replication factor (4) | shard count (4) | shard ids (4 each) | name (str) | parent name (str, empty for the root)
 *  retention.ms (8) | retention.bytes (8)
 * </pre>
 *
 * and the outcome of a color change (CREATE_COLOR_RESPONSE, ALTER_COLOR_RESPONSE):
 *
 * <pre>
 *  flag (1: 0 or 1) | topology version (8) | unacknowledged node count (4) | node ids (4 each) | color entry
 * </pre>
 *
 * Readers work on a slice of the body and throw {@link IndexOutOfBoundsException} when it is too
 * short; the descriptors turn that into a {@link ProtocolException} naming the frame.
 */
final class AdminBodies {
  /** The longest string a frame carries, in UTF-8 bytes. */
  static final int MAX_STRING_BYTES = 0xFFFF;

  /** The smallest color entry: four ints (no shards), two empty strings and two longs. */
  static final int MIN_COLOR_BYTES = 36;

  /** A color change's outcome: the flag (created, changed), the version and the color. */
  record Outcome(
      boolean flag, long topologyVersion, List<Integer> unacknowledgedNodeIds, ColorEntry color) {}

  private AdminBodies() {}

  static ByteBuf body(ByteBuf frame) {
    return frame.slice(FrameDescriptor.body(frame), FrameDescriptor.bodyLength(frame));
  }

  static void writeString(ByteBuf out, String value) {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > MAX_STRING_BYTES) {
      throw new IllegalArgumentException(
          "string of " + bytes.length + " UTF-8 bytes, at most " + MAX_STRING_BYTES + " fit");
    }
    out.writeShort(bytes.length);
    out.writeBytes(bytes);
  }

  static String readString(ByteBuf in) {
    int length = in.readUnsignedShort();
    return in.readCharSequence(length, StandardCharsets.UTF_8).toString();
  }

  /** A count field: non-negative and no larger than what the rest of the body can hold. */
  static int readCount(ByteBuf in, String frame, String what, int minBytesEach) {
    int count = in.readInt();
    if (count < 0 || (long) count * minBytesEach > in.readableBytes()) {
      throw new ProtocolException(
          frame
              + ": "
              + what
              + " count "
              + count
              + " does not fit the "
              + in.readableBytes()
              + " bytes left");
    }
    return count;
  }

  static void writeColor(ByteBuf out, ColorEntry color) {
    out.writeInt(color.id());
    out.writeInt(color.sequencerNodeId());
    out.writeInt(color.replicationFactor());
    out.writeInt(color.shardIds().size());
    for (int shard : color.shardIds()) {
      out.writeInt(shard);
    }
    writeString(out, color.name());
    writeString(out, color.parent());
    out.writeLong(color.retentionMs());
    out.writeLong(color.retentionBytes());
  }

  static ColorEntry readColor(ByteBuf in, String frame) {
    int id = in.readInt();
    int sequencer = in.readInt();
    int replication = in.readInt();
    int shardCount = readCount(in, frame, "shard", 4);
    List<Integer> shards = new ArrayList<>(shardCount);
    for (int i = 0; i < shardCount; i++) {
      shards.add(in.readInt());
    }
    String name = readString(in);
    String parent = readString(in);
    long retentionMs = in.readLong();
    long retentionBytes = in.readLong();
    return new ColorEntry(
        id, name, parent, sequencer, replication, shards, retentionMs, retentionBytes);
  }

  static void writeOutcome(ByteBuf out, Outcome outcome) {
    out.writeByte(outcome.flag() ? 1 : 0);
    out.writeLong(outcome.topologyVersion());
    out.writeInt(outcome.unacknowledgedNodeIds().size());
    for (int node : outcome.unacknowledgedNodeIds()) {
      out.writeInt(node);
    }
    writeColor(out, outcome.color());
  }

  /**
   * @param flagName the flag's name in the frame's documentation, for the error message
   */
  static Outcome readOutcome(ByteBuf in, String frame, String flagName) {
    int flag = in.readUnsignedByte();
    if (flag > 1) {
      throw new ProtocolException(frame + ": " + flagName + " flag must be 0 or 1, got " + flag);
    }
    long version = in.readLong();
    int count = readCount(in, frame, "unacknowledged node", 4);
    List<Integer> nodes = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      nodes.add(in.readInt());
    }
    ColorEntry color = readColor(in, frame);
    return new Outcome(flag == 1, version, nodes, color);
  }

  static void requireEnd(ByteBuf in, String frame) {
    if (in.isReadable()) {
      throw new ProtocolException(frame + " has " + in.readableBytes() + " trailing bytes");
    }
  }

  static ProtocolException truncated(String frame) {
    return new ProtocolException(frame + " is truncated");
  }
}
