package io.flexlog.client.consumer.internals;

import io.flexlog.client.consumer.ColorShard;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The byte layout of a group log record (the payload of a record of color {@code
 * flexlog.group.<id>}), big-endian:
 *
 * <pre>
 *  0       2       3       4
 *  +-------+-------+-------+---------------------------------------------+
 *  | magic |version| type  | body (by type)                              |
 *  | 0x4647|   1   |  1-9  |                                             |
 *  +-------+-------+-------+---------------------------------------------+
 *
 *  str    = u16 length, UTF-8 bytes
 *  shard  = str color, i32 shard (-1: the whole color)
 *  JOIN       1: str member, i64 sessionTimeoutMs, u16 n, n x str color
 *  HEARTBEAT  2: str member
 *  LEAVE      3: str member
 *  EXPEL      4: str member, i64 lastBeatSn
 *  ASSIGN     5: i64 generation, i32 n, n x (shard, str member)
 *  COMMIT     6: str writer, u8 asMember, i64 generation, i64 seq, i32 n, n x (shard, i64 nextSn)
 *  RESET      7: i32 n, n x (shard, i64 nextSn)
 *  CHECKPOINT 8: i64 basedOnSn, i64 generation, i64 assignedGeneration,
 *                i32 n, n x (str member, i64 sessionTimeoutMs, i64 lastBeatSn, u16 m, m x str),
 *                i32 n, n x (shard, str member, i64 sinceGeneration),
 *                i32 n, n x (shard, i64 nextSn),
 *                i32 n, n x (shard, str writer, i64 seq)        last accepted commit per shard
 *  SYNC       9: i64 nonce
 * </pre>
 *
 * Stateless; {@link #decode} throws {@link IllegalArgumentException} naming what is wrong.
 */
public final class GroupRecordDescriptor {
  public static final short MAGIC = 0x4647;
  public static final byte VERSION = 1;
  public static final int HEADER_BYTES = 4;

  public static final byte JOIN = 1;
  public static final byte HEARTBEAT = 2;
  public static final byte LEAVE = 3;
  public static final byte EXPEL = 4;
  public static final byte ASSIGN = 5;
  public static final byte COMMIT = 6;
  public static final byte RESET = 7;
  public static final byte CHECKPOINT = 8;
  public static final byte SYNC = 9;

  private GroupRecordDescriptor() {}

  public static byte[] encode(GroupRecord record) {
    Writer w = new Writer();
    w.buf.putShort(MAGIC).put(VERSION);
    if (record instanceof GroupRecord.Join j) {
      w.type(JOIN).str(j.member()).i64(j.sessionTimeoutMs());
      w.u16(j.colors().size());
      j.colors().forEach(w::str);
    } else if (record instanceof GroupRecord.Heartbeat h) {
      w.type(HEARTBEAT).str(h.member());
    } else if (record instanceof GroupRecord.Leave l) {
      w.type(LEAVE).str(l.member());
    } else if (record instanceof GroupRecord.Expel e) {
      w.type(EXPEL).str(e.member()).i64(e.lastBeatSn());
    } else if (record instanceof GroupRecord.Assign a) {
      w.type(ASSIGN).i64(a.generation()).i32(a.owners().size());
      a.owners().forEach((cs, member) -> w.shard(cs).str(member));
    } else if (record instanceof GroupRecord.Commit c) {
      w.type(COMMIT).str(c.writer()).u8(c.asMember() ? 1 : 0).i64(c.generation()).i64(c.seq());
      w.positions(c.positions());
    } else if (record instanceof GroupRecord.Reset r) {
      w.type(RESET).positions(r.positions());
    } else if (record instanceof GroupRecord.Checkpoint c) {
      w.type(CHECKPOINT).i64(c.basedOnSn());
      encodeSnapshot(w, c.state());
    } else if (record instanceof GroupRecord.Sync s) {
      w.type(SYNC).i64(s.nonce());
    }
    return w.bytes();
  }

  private static void encodeSnapshot(Writer w, GroupState.Snapshot s) {
    w.i64(s.generation()).i64(s.assignedGeneration()).i32(s.members().size());
    for (GroupState.Member m : s.members()) {
      w.str(m.id()).i64(m.sessionTimeoutMs()).i64(m.lastBeatSn()).u16(m.colors().size());
      m.colors().forEach(w::str);
    }
    w.i32(s.owners().size());
    s.owners().forEach((cs, o) -> w.shard(cs).str(o.member()).i64(o.sinceGeneration()));
    w.positions(s.committed());
    w.i32(s.lastCommits().size());
    s.lastCommits().forEach((cs, m) -> w.shard(cs).str(m.writer()).i64(m.seq()));
  }

  /**
   * @throws IllegalArgumentException for a wrong magic, version or type, or a truncated body
   */
  public static GroupRecord decode(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    try {
      if (b.getShort() != MAGIC) {
        throw new IllegalArgumentException("not a group log record (bad magic)");
      }
      byte version = b.get();
      if (version != VERSION) {
        throw new IllegalArgumentException("group log record version " + version + " unknown");
      }
      byte type = b.get();
      return switch (type) {
        case JOIN -> new GroupRecord.Join(str(b), b.getLong(), strings(b));
        case HEARTBEAT -> new GroupRecord.Heartbeat(str(b));
        case LEAVE -> new GroupRecord.Leave(str(b));
        case EXPEL -> new GroupRecord.Expel(str(b), b.getLong());
        case ASSIGN -> assign(b);
        case COMMIT ->
            new GroupRecord.Commit(str(b), b.get() != 0, b.getLong(), b.getLong(), positions(b));
        case RESET -> new GroupRecord.Reset(positions(b));
        case CHECKPOINT -> new GroupRecord.Checkpoint(b.getLong(), snapshot(b));
        case SYNC -> new GroupRecord.Sync(b.getLong());
        default -> throw new IllegalArgumentException("group log record type " + type + " unknown");
      };
    } catch (BufferUnderflowException e) {
      throw new IllegalArgumentException("group log record truncated (" + bytes.length + " bytes)");
    }
  }

  private static GroupRecord.Assign assign(ByteBuffer b) {
    long generation = b.getLong();
    int n = count(b);
    Map<ColorShard, String> owners = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      owners.put(shard(b), str(b));
    }
    return new GroupRecord.Assign(generation, owners);
  }

  private static GroupState.Snapshot snapshot(ByteBuffer b) {
    long generation = b.getLong();
    long assigned = b.getLong();
    int n = count(b);
    List<GroupState.Member> members = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      members.add(new GroupState.Member(str(b), b.getLong(), b.getLong(), strings(b)));
    }
    n = count(b);
    Map<ColorShard, GroupState.Owner> owners = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      owners.put(shard(b), new GroupState.Owner(str(b), b.getLong()));
    }
    Map<ColorShard, Long> committed = positions(b);
    n = count(b);
    Map<ColorShard, GroupState.CommitMark> marks = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      marks.put(shard(b), new GroupState.CommitMark(str(b), b.getLong()));
    }
    return new GroupState.Snapshot(generation, assigned, members, owners, committed, marks);
  }

  private static Map<ColorShard, Long> positions(ByteBuffer b) {
    int n = count(b);
    Map<ColorShard, Long> positions = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      positions.put(shard(b), b.getLong());
    }
    return positions;
  }

  private static int count(ByteBuffer b) {
    int n = b.getInt();
    if (n < 0 || n > b.remaining()) {
      throw new IllegalArgumentException("group log record has a bad count " + n);
    }
    return n;
  }

  private static ColorShard shard(ByteBuffer b) {
    String color = str(b);
    int shard = b.getInt();
    try {
      return new ColorShard(color, shard);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("group log record names a bad shard: " + e.getMessage());
    }
  }

  private static List<String> strings(ByteBuffer b) {
    int n = Short.toUnsignedInt(b.getShort());
    List<String> list = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      list.add(str(b));
    }
    return list;
  }

  private static String str(ByteBuffer b) {
    int length = Short.toUnsignedInt(b.getShort());
    byte[] bytes = new byte[length];
    b.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /** A growing big-endian buffer. */
  private static final class Writer {
    ByteBuffer buf = ByteBuffer.allocate(256);

    Writer type(byte type) {
      buf.put(type);
      return this;
    }

    private void room(int bytes) {
      if (buf.remaining() < bytes) {
        ByteBuffer bigger =
            ByteBuffer.allocate(Math.max(buf.capacity() * 2, buf.position() + bytes));
        buf.flip();
        bigger.put(buf);
        buf = bigger;
      }
    }

    Writer str(String s) {
      byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
      if (bytes.length > 0xFFFF) {
        throw new IllegalArgumentException("string too long for a group log record");
      }
      room(2 + bytes.length);
      buf.putShort((short) bytes.length).put(bytes);
      return this;
    }

    Writer u8(int v) {
      room(1);
      buf.put((byte) v);
      return this;
    }

    Writer u16(int v) {
      room(2);
      buf.putShort((short) v);
      return this;
    }

    Writer i32(int v) {
      room(4);
      buf.putInt(v);
      return this;
    }

    Writer i64(long v) {
      room(8);
      buf.putLong(v);
      return this;
    }

    Writer shard(ColorShard cs) {
      return str(cs.color()).i32(cs.shard());
    }

    Writer positions(Map<ColorShard, Long> positions) {
      i32(positions.size());
      positions.forEach((cs, sn) -> shard(cs).i64(sn));
      return this;
    }

    byte[] bytes() {
      byte[] out = new byte[buf.position()];
      buf.flip();
      buf.get(out);
      return out;
    }
  }
}
