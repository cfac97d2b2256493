package io.flexlog.replica.atomic;

import io.flexlog.core.model.Sn;
import io.flexlog.replica.replication.ReplicaRuntime;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import org.agrona.collections.LongArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds the groups from the staging entries recovery finds, in log order: a group with a durable
 * END and no DONE is forwarded again with the same tokens; a group with DONE or ABORTED is
 * remembered to answer from it (for the retention, counted from the restart); a group without END
 * or ABORTED gets a new abandon timeout. Entries whose commit was lost get new staging SNs.
 *
 * <p>Threading: confined to the replica's event loop, before it serves.
 */
final class GroupRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(GroupRecovery.class);

  private final int nodeId;
  private final GroupTable table;
  private final StagingLog log;
  private final Forwarder forwarder;
  private final ReplicaRuntime scheduler;

  private final List<StagedGroup> uncommitted = new ArrayList<>();
  private final LongArrayList uncommittedAddresses = new LongArrayList();

  GroupRecovery(
      int nodeId, GroupTable table, StagingLog log, Forwarder forwarder, ReplicaRuntime scheduler) {
    this.nodeId = nodeId;
    this.table = table;
    this.log = log;
    this.forwarder = forwarder;
    this.scheduler = scheduler;
  }

  /** One staging entry, in log order; {@code sn == 0} if its commit was lost. */
  void onEntry(long address, int shardId, long tokenSession, long tokenSequence, long sn) {
    ByteBuf entry = log.entry(address);
    try {
      StagedEntryDescriptor.validate(entry);
    } catch (RuntimeException e) {
      LOG.error("replica {} skips an unreadable staging entry: {}", nodeId, e.getMessage());
      return;
    }
    log.noteRecoveredSn(sn);
    StagedGroup group =
        table.getOrCreate(
            StagedEntryDescriptor.groupHigh(entry),
            StagedEntryDescriptor.groupLow(entry),
            shardId,
            StagedEntryDescriptor.memberCount(entry));
    if (sn == Sn.NONE) {
      uncommitted.add(group);
      uncommittedAddresses.addLong(address);
    } else {
      group.noteStagingSn(sn);
    }
    switch (StagedEntryDescriptor.kind(entry)) {
      case StagedEntryDescriptor.MEMBER -> {
        int index = StagedEntryDescriptor.memberIndex(entry);
        if (group.memberAddress[index] == StagedGroup.NO_ADDRESS) {
          group.stage(
              index,
              address,
              tokenSession,
              tokenSequence,
              StagedEntryDescriptor.targetColorId(entry),
              StagedEntryDescriptor.targetShardId(entry));
        }
      }
      case StagedEntryDescriptor.END -> {
        if (!group.abortWritten) {
          group.endWritten = true;
          group.ended = true;
        }
      }
      case StagedEntryDescriptor.ABORTED -> {
        if (!group.endWritten) {
          group.abortWritten = true;
          group.aborted = true;
          group.settleSn = sn;
        }
      }
      default -> {
        group.done = true;
        group.settleSn = sn;
        for (int i = 0; i < group.memberCount; i++) {
          group.sns[i] = StagedEntryDescriptor.doneSn(entry, i);
        }
      }
    }
  }

  /**
   * Every entry is replayed: commits the entries that lost their commit, sorts the groups into
   * settled and unsettled, and resumes forwarding the ended ones (the transport is flushed).
   */
  void onRecovered() {
    log.commitRecovered(uncommittedAddresses, uncommitted);
    uncommitted.clear();
    uncommittedAddresses.clear();
    long now = scheduler.nanoTime();
    int resumed = 0;
    List<StagedGroup> recoveredSettled = new ArrayList<>();
    for (StagedGroup group : table.all()) {
      group.lastStageNs = now;
      if (group.settled()) {
        group.settledNs = now;
        recoveredSettled.add(group);
        continue;
      }
      table.addUnsettled(group);
      if (group.ended) {
        if (!group.fullyStaged()) {
          LOG.error(
              "replica {}: group {} has an end marker but {} of {} members; not forwarded",
              nodeId,
              group.describe(),
              group.staged,
              group.memberCount);
          continue;
        }
        forwarder.start(group);
        resumed++;
      }
    }
    recoveredSettled.sort((a, b) -> Long.compare(a.settleSn, b.settleSn));
    table.addSettled(recoveredSettled);
    if (!table.isEmpty()) {
      LOG.info(
          "replica {} recovered {} atomic groups, forwarding {} again",
          nodeId,
          table.size(),
          resumed);
    }
  }
}
