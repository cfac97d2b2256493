package io.flexlog.replica.atomic;

import static io.flexlog.replica.replication.StagingHook.STAGING_COLOR_ID;

import io.flexlog.core.protocol.StageDescriptor;
import io.flexlog.replica.storage.LogStorage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.List;
import org.agrona.collections.LongArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The entries of the reserved staging color in this replica's log (layout {@link
 * StagedEntryDescriptor}): members, END, DONE and ABORTED. Every entry is committed at once with
 * the next local SN of the staging color, so it never blocks the log as a pending entry; it is
 * durable after the engine's next flush. Also the staging color's trim point.
 *
 * <p>Threading: confined to the replica's event loop.
 */
final class StagingLog {
  private static final Logger LOG = LoggerFactory.getLogger(StagingLog.class);
  private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

  private final int nodeId;
  private final LogStorage storage;

  /** The last local SN given to a staging entry. */
  private long stagingSn;

  StagingLog(int nodeId, LogStorage storage) {
    this.nodeId = nodeId;
    this.storage = storage;
  }

  /**
   * Appends the member carried by a STAGE frame and commits it. The caller keeps the frame.
   *
   * @return the member's address, or {@link LogStorage#NO_SPACE} when the log is full
   * @throws IllegalArgumentException if the entry is larger than the log allows
   */
  long appendMember(ByteBuf frame, StagedGroup group) {
    ByteBuf payload = StageDescriptor.payload(frame);
    ByteBuf header =
        StagedEntryDescriptor.encodeHeader(
            ALLOC,
            StagedEntryDescriptor.MEMBER,
            StageDescriptor.groupHigh(frame),
            StageDescriptor.groupLow(frame),
            StageDescriptor.memberIndex(frame),
            StageDescriptor.memberCount(frame),
            StageDescriptor.targetColorId(frame),
            StageDescriptor.targetShardId(frame),
            payload.readableBytes(),
            0);
    ByteBuf entry = Unpooled.wrappedBuffer(header, payload.retainedSlice());
    try {
      long address =
          storage.appendPending(
              StageDescriptor.brokerShardId(frame),
              STAGING_COLOR_ID,
              StageDescriptor.tokenSession(frame),
              StageDescriptor.tokenSequence(frame),
              entry);
      if (address != LogStorage.NO_SPACE) {
        storage.commit(address, ++stagingSn);
        group.noteStagingSn(stagingSn);
      }
      return address;
    } finally {
      entry.release();
    }
  }

  /**
   * Appends an END, DONE or ABORTED entry of {@code group} with {@code body} (the caller keeps it)
   * and commits it; a DONE or ABORTED entry's SN becomes the group's {@code settleSn}.
   *
   * @return false (logged) when the log is full
   */
  boolean appendMarker(StagedGroup group, byte kind, ByteBuf body) {
    ByteBuf header =
        StagedEntryDescriptor.encodeHeader(
            ALLOC,
            kind,
            group.groupHigh,
            group.groupLow,
            0,
            group.memberCount,
            0,
            0,
            body.readableBytes(),
            0);
    ByteBuf entry = Unpooled.wrappedBuffer(header, body.retain());
    try {
      long address =
          storage.appendPending(
              group.brokerShardId, STAGING_COLOR_ID, group.groupHigh, group.groupLow, entry);
      if (address == LogStorage.NO_SPACE) {
        LOG.error(
            "replica {} has no log space for the {} marker of group {}",
            nodeId,
            kind == StagedEntryDescriptor.END
                ? "end"
                : kind == StagedEntryDescriptor.DONE ? "done" : "aborted",
            group.describe());
        return false;
      }
      storage.commit(address, ++stagingSn);
      group.noteStagingSn(stagingSn);
      if (kind != StagedEntryDescriptor.END) {
        group.settleSn = stagingSn;
      }
      return true;
    } finally {
      entry.release();
    }
  }

  /** Appends the DONE entry of a group: the SN (or minus the error code) of every member. */
  boolean appendDone(StagedGroup group) {
    ByteBuf body = ALLOC.buffer(group.memberCount * 8);
    try {
      for (long sn : group.sns) {
        body.writeLong(sn);
      }
      return appendMarker(group, StagedEntryDescriptor.DONE, body);
    } finally {
      body.release();
    }
  }

  /** The body of a staged member (its record), a view valid until the next storage call. */
  ByteBuf memberBody(long address) {
    return StagedEntryDescriptor.body(storage.payload(address));
  }

  /** A recovered entry's payload, a view valid until the next storage call. */
  ByteBuf entry(long address) {
    return storage.payload(address);
  }

  /** Notes the SN of an entry found by recovery, so that new entries get larger ones. */
  void noteRecoveredSn(long sn) {
    stagingSn = Math.max(stagingSn, sn);
  }

  /**
   * Recovery is over: new SNs must also stay above the trim point (every staging entry may have
   * been trimmed), then the recovered entries that lost their commit get the next SNs.
   *
   * @param addresses the uncommitted entries, in log order
   * @param groups the group of each
   */
  void commitRecovered(LongArrayList addresses, List<StagedGroup> groups) {
    stagingSn = Math.max(stagingSn, storage.trimPoint(STAGING_COLOR_ID));
    for (int i = 0; i < addresses.size(); i++) {
      storage.commit(addresses.getLong(i), ++stagingSn);
      groups.get(i).noteStagingSn(stagingSn);
    }
    storage.flush();
  }

  /** The last SN given to a staging entry. */
  long lastSn() {
    return stagingSn;
  }

  /** Raises the staging color's trim point to {@code point} if that is above it. */
  void trimTo(long point) {
    if (point > storage.trimPoint(STAGING_COLOR_ID)) {
      storage.trim(STAGING_COLOR_ID, point);
    }
  }

  long trimPoint() {
    return storage.trimPoint(STAGING_COLOR_ID);
  }
}
