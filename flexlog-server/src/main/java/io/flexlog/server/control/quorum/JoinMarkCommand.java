package io.flexlog.server.control.quorum;

import io.flexlog.sequencer.ordering.JoinMarkStore.Mark;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Layout of the join mark entries of the metadata quorum's log (big-endian), beside the entries of
 * {@link MetadataCommand} and {@link RoleCommand} (same magic and kind byte), and of the marks in a
 * {@link MetadataSnapshot}:
 *
 * <pre>
 *  entry: | magic 'FLXQ' (4) | kind SAVE_MARKS (1) | color id (4) | marks |
 *  marks: | mark count (4) | per mark: | topology version (8) | mark SN (8) |
 *         |   joined shard count (4) | shard ids (4 each) |
 *  reply: | 0 (1) |
 * </pre>
 *
 * <p>The state machine merges an entry's marks into those it holds for the color ({@link
 * io.flexlog.sequencer.ordering.JoinMarkStore#merge}), so the entry applies unconditionally and is
 * safe to apply twice (docs/architecture.md#join-marks).
 */
final class JoinMarkCommand {
  static final int COLOR_OFFSET = MetadataCommand.KIND_OFFSET + 1;
  static final int MARKS_OFFSET = COLOR_OFFSET + 4;

  /** A decoded entry. */
  record Entry(int colorId, List<Mark> marks) {}

  private JoinMarkCommand() {}

  static byte[] encode(int colorId, List<Mark> marks) {
    ByteBuffer buf = ByteBuffer.allocate(MARKS_OFFSET + length(marks)).order(ByteOrder.BIG_ENDIAN);
    buf.putInt(MetadataCommand.MAGIC);
    buf.put((byte) MetadataCommand.Kind.SAVE_MARKS.ordinal());
    buf.putInt(colorId);
    put(buf, marks);
    return buf.array();
  }

  /** Decodes an entry whose kind {@link MetadataCommand#kind} already read. */
  static Entry decode(ByteBuffer data) {
    ByteBuffer buf = data.slice().order(ByteOrder.BIG_ENDIAN);
    if (buf.remaining() < MARKS_OFFSET + 4) {
      throw new IllegalArgumentException(
          "join mark entry of " + buf.remaining() + " bytes, shorter than its header");
    }
    buf.position(COLOR_OFFSET);
    int colorId = buf.getInt();
    List<Mark> marks = get(buf, "join mark entry");
    if (buf.hasRemaining()) {
      throw new IllegalArgumentException(
          "join mark entry with " + buf.remaining() + " bytes after its marks");
    }
    return new Entry(colorId, marks);
  }

  /** The bytes {@link #put} writes for {@code marks}. */
  static int length(List<Mark> marks) {
    int length = 4;
    for (Mark mark : marks) {
      length += 20 + 4 * mark.joinedShardIds().size();
    }
    return length;
  }

  static void put(ByteBuffer buf, List<Mark> marks) {
    buf.putInt(marks.size());
    for (Mark mark : marks) {
      buf.putLong(mark.topologyVersion()).putLong(mark.sn());
      buf.putInt(mark.joinedShardIds().size());
      mark.joinedShardIds().forEach(buf::putInt);
    }
  }

  /**
   * @throws IllegalArgumentException naming {@code what} when the marks are cut short or counts are
   *     negative
   */
  static List<Mark> get(ByteBuffer buf, String what) {
    try {
      int count = buf.getInt();
      if (count < 0 || count > buf.remaining() / 20) {
        throw new IllegalArgumentException(what + " claims " + count + " marks");
      }
      List<Mark> marks = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        long version = buf.getLong();
        long sn = buf.getLong();
        int joined = buf.getInt();
        if (joined < 0 || joined > buf.remaining() / 4) {
          throw new IllegalArgumentException(what + " has a mark naming " + joined + " shards");
        }
        List<Integer> ids = new ArrayList<>(joined);
        for (int j = 0; j < joined; j++) {
          ids.add(buf.getInt());
        }
        marks.add(new Mark(version, sn, ids));
      }
      return List.copyOf(marks);
    } catch (BufferUnderflowException e) {
      throw new IllegalArgumentException(what + " is shorter than its marks", e);
    }
  }
}
