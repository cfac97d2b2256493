package io.flexlog.core.protocol;

import io.flexlog.core.error.ProtocolException;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Fields the admin frames (codes 90-95, docs/protocol.md#admin-frames) share: strings (an unsigned
 * 2-byte length and UTF-8 bytes), counted lists and the color entry:
 *
 * <pre>
 *  id (4) | sequencer node id (4) | replication factor (4) | shard count (4) | shard ids (4 each) | name (str) | parent name (str, empty for the root)
 * </pre>
 *
 * Readers work on a slice of the body and throw {@link IndexOutOfBoundsException} when it is too
 * short; the descriptors turn that into a {@link ProtocolException} naming the frame.
 */
final class AdminBodies {
  /** The longest string a frame carries, in UTF-8 bytes. */
  static final int MAX_STRING_BYTES = 0xFFFF;

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
    return new ColorEntry(id, name, parent, sequencer, replication, shards);
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
