package io.flexlog.replica.atomic;

import io.flexlog.core.error.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The payload of a log entry in the staging color ({@link
 * io.flexlog.replica.replication.StagingHook#STAGING_COLOR_ID}): a header naming the atomic group,
 * then a kind-specific body. Big-endian. The entry's own token fields hold the member's token for a
 * MEMBER and the group id for END and DONE; its shard is the broker shard.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------------------------------+---------------+---------------+
 *  |        magic 0xA70C           |    version    |     kind      |
 *  +-------------------------------+---------------+---------------+
 *  |                      group id: high 64 bits                   |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                      group id: low 64 bits                    |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                member index (MEMBER), else 0                  |
 *  +---------------------------------------------------------------+
 *  |                         member count                          |
 *  +---------------------------------------------------------------+
 *  |              target color id (MEMBER), else 0                 |
 *  +---------------------------------------------------------------+
 *  |              target shard id (MEMBER), else 0                 |
 *  +---------------------------------------------------------------+
 *  |                         body length                           |
 *  +---------------------------------------------------------------+
 *  |  body: MEMBER the record's payload; END and ABORTED nothing;  |
 *  |        DONE member count x int64, in member order: the SN of  |
 *  |        the member in its color (> 0), or minus the ErrorCode  |
 *  |        of a member whose forward failed permanently (< 0)      |
 * </pre>
 *
 * <p>Kinds: MEMBER 1, END 2, DONE 3, ABORTED 4. Per group a replica writes at most one of END and
 * ABORTED: whichever it wrote first decides.
 */
final class StagedEntryDescriptor {
  static final int MAGIC_OFFSET = 0;
  static final int VERSION_OFFSET = 2;
  static final int KIND_OFFSET = 3;
  static final int GROUP_HIGH_OFFSET = 4;
  static final int GROUP_LOW_OFFSET = 12;
  static final int MEMBER_INDEX_OFFSET = 20;
  static final int MEMBER_COUNT_OFFSET = 24;
  static final int TARGET_COLOR_OFFSET = 28;
  static final int TARGET_SHARD_OFFSET = 32;
  static final int BODY_LENGTH_OFFSET = 36;
  static final int HEADER_LENGTH = 40;

  static final short MAGIC = (short) 0xA70C;
  static final byte VERSION = 1;

  /** A staged member: its target and payload. */
  static final byte MEMBER = 1;

  /** The group's end marker: every member is staged on every replica; forward them. */
  static final byte END = 2;

  /** Every member is committed in its target color; the body holds their SNs. */
  static final byte DONE = 3;

  /** The group was abandoned before its END: this replica will never write END for it. */
  static final byte ABORTED = 4;

  private StagedEntryDescriptor() {}

  /** Encodes the header; the caller appends {@code bodyLength} bytes (or a second buffer). */
  static ByteBuf encodeHeader(
      ByteBufAllocator alloc,
      byte kind,
      long groupHigh,
      long groupLow,
      int memberIndex,
      int memberCount,
      int targetColorId,
      int targetShardId,
      int bodyLength,
      int allocateBody) {
    ByteBuf buf = alloc.buffer(HEADER_LENGTH + allocateBody);
    buf.writeShort(MAGIC);
    buf.writeByte(VERSION);
    buf.writeByte(kind);
    buf.writeLong(groupHigh);
    buf.writeLong(groupLow);
    buf.writeInt(memberIndex);
    buf.writeInt(memberCount);
    buf.writeInt(targetColorId);
    buf.writeInt(targetShardId);
    buf.writeInt(bodyLength);
    return buf;
  }

  /**
   * Checks magic, version, kind and lengths of an entry's payload.
   *
   * @throws ProtocolException naming the problem (a staging entry this version cannot read)
   */
  static void validate(ByteBuf entry) {
    int start = entry.readerIndex();
    if (entry.readableBytes() < HEADER_LENGTH) {
      throw new ProtocolException("staging entry of " + entry.readableBytes() + " bytes");
    }
    if (entry.getShort(start + MAGIC_OFFSET) != MAGIC
        || entry.getByte(start + VERSION_OFFSET) != VERSION) {
      throw new ProtocolException("staging entry with a bad magic or version");
    }
    byte kind = kind(entry);
    if (kind != MEMBER && kind != END && kind != DONE && kind != ABORTED) {
      throw new ProtocolException("staging entry of unknown kind " + kind);
    }
    if (bodyLength(entry) != entry.readableBytes() - HEADER_LENGTH) {
      throw new ProtocolException("staging entry body length disagrees with the entry");
    }
    int count = memberCount(entry);
    if (count < 1 || (kind == MEMBER && (memberIndex(entry) < 0 || memberIndex(entry) >= count))) {
      throw new ProtocolException("staging entry with member index outside its group");
    }
    if (kind == DONE && bodyLength(entry) != count * 8) {
      throw new ProtocolException("DONE staging entry without one SN per member");
    }
    if ((kind == END || kind == ABORTED) && bodyLength(entry) != 0) {
      throw new ProtocolException("END or ABORTED staging entry with a body");
    }
  }

  static byte kind(ByteBuf entry) {
    return entry.getByte(entry.readerIndex() + KIND_OFFSET);
  }

  static long groupHigh(ByteBuf entry) {
    return entry.getLong(entry.readerIndex() + GROUP_HIGH_OFFSET);
  }

  static long groupLow(ByteBuf entry) {
    return entry.getLong(entry.readerIndex() + GROUP_LOW_OFFSET);
  }

  static int memberIndex(ByteBuf entry) {
    return entry.getInt(entry.readerIndex() + MEMBER_INDEX_OFFSET);
  }

  static int memberCount(ByteBuf entry) {
    return entry.getInt(entry.readerIndex() + MEMBER_COUNT_OFFSET);
  }

  static int targetColorId(ByteBuf entry) {
    return entry.getInt(entry.readerIndex() + TARGET_COLOR_OFFSET);
  }

  static int targetShardId(ByteBuf entry) {
    return entry.getInt(entry.readerIndex() + TARGET_SHARD_OFFSET);
  }

  static int bodyLength(ByteBuf entry) {
    return entry.getInt(entry.readerIndex() + BODY_LENGTH_OFFSET);
  }

  /** A view of the body; not retained. */
  static ByteBuf body(ByteBuf entry) {
    return entry.slice(entry.readerIndex() + HEADER_LENGTH, bodyLength(entry));
  }

  /**
   * The SN of member {@code index} in a DONE entry, or minus the {@link
   * io.flexlog.core.error.ErrorCode#code()} its forward failed with.
   */
  static long doneSn(ByteBuf entry, int index) {
    return entry.getLong(entry.readerIndex() + HEADER_LENGTH + index * 8);
  }
}
