package io.flexlog.sequencer.ordering;

import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import java.util.Arrays;
import java.util.List;
import org.agrona.collections.IntHashSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes the join marks of the hosted roles (docs/architecture.md#join-marks): when a role's subtree
 * grows under it ({@link #take}), and when a role that is created here (a restart, a takeover)
 * finds shards in its subtree that joined after its color was created but that no saved mark names
 * ({@link #takeLost}): its former leader took that mark and died before it was saved, and so issued
 * no SN at or above it. A mark this role takes at its own next SN, before it issues anything, is
 * then true for those shards, and every replica of an older shard gets it before any watermark that
 * reaches it.
 *
 * <p>Like the {@link OrderingService}, it touches no socket: frames go through the {@link
 * Broadcaster} and the {@link ChildLinks}. Logs under the {@code OrderingService} logger.
 * Threading: the node's event loop.
 */
final class JoinMarkTaker {
  private static final Logger LOG = LoggerFactory.getLogger(OrderingService.class);

  /** The epoch of a node's first process: {@link io.flexlog.sequencer.EpochStore} starts at 1. */
  static final int FIRST_INCARNATION = 1;

  private final int incarnation;
  private final OrderingTables tables;
  private final Broadcaster broadcaster;
  private final ChildLinks childLinks;

  /**
   * @param incarnation this process's epoch at start ({@link #FIRST_INCARNATION}: the node's first
   *     process, so no role it hosts without leases issued anything before)
   */
  JoinMarkTaker(
      int incarnation, OrderingTables tables, Broadcaster broadcaster, ChildLinks childLinks) {
    this.incarnation = incarnation;
    this.tables = tables;
    this.broadcaster = broadcaster;
    this.childLinks = childLinks;
  }

  /**
   * The shards of {@code colorId}'s subtree in {@code topology} that no mark in {@code marks}
   * accounts for, in the topology's order: those not attached to the color itself whose ids are
   * larger than every id of the color's own shards and of every shard a mark names. AddColor gives
   * a new color's shards ids above every existing one (docs/architecture.md#join-marks), so a shard
   * that joined the subtree later has a larger id than every shard that was in it before, and a
   * mark names the shards that joined with it; marks are saved whole and in order, so the ones a
   * crash loses are the newest. Shards of descendant colors that came with the cluster file and
   * have no mark count as lacking one too (the role takes one for the whole subtree when it first
   * starts, before it issues anything: {@link #takeLost}).
   */
  static int[] lacking(Topology topology, int colorId, List<JoinMarkStore.Mark> marks) {
    List<Shard> subtree = topology.shardsInSubtree(colorId);
    long covered = Long.MIN_VALUE;
    for (Shard shard : subtree) {
      if (shard.colorId() == colorId) {
        covered = Math.max(covered, shard.id());
      }
    }
    IntHashSet named = new IntHashSet();
    for (JoinMarkStore.Mark mark : marks) {
      for (int shardId : mark.joinedShardIds()) {
        named.add(shardId);
        covered = Math.max(covered, shardId);
      }
    }
    int[] lacking = new int[subtree.size()];
    int count = 0;
    for (Shard shard : subtree) {
      if (shard.id() > covered && !named.contains(shard.id())) {
        lacking[count++] = shard.id();
      }
    }
    return Arrays.copyOf(lacking, count);
  }

  /**
   * Checks a hosted role whose marks were not checked yet for shards that lack one, once it may
   * ({@link OrderingTables#marksCheckable}), and takes a mark for them: at the role's next SN, with
   * the current topology version. Until then the role issues nothing. A role whose loaded marks are
   * not all kept where its next leader looks (marks only its node's file has) saves them again
   * first.
   */
  void takeLost(OrderingTables.HostedColor hosted) {
    if (!hosted.marksUnchecked || !tables.marksCheckable(hosted)) {
      return;
    }
    hosted.marksUnchecked = false;
    Topology topology = tables.topology();
    int colorId = hosted.role.colorId();
    int[] lacking = lacking(topology, colorId, hosted.marks.toList());
    if (lacking.length > 0 && neverIssued(hosted)) {
      // The role's first start (or its color's creation): the mark only records which shards
      // the subtree has now, for the check of a later process. Every shard joined with it, so no
      // replica hears of it, and it is true: no SN of the color exists yet.
      take(hosted, topology.version(), subtreeShardIds(hosted.role));
    } else if (lacking.length > 0) {
      LOG.info(
          "color {}: shards {} of its subtree have no saved join mark (its former leader took it"
              + " and stopped before saving it); taking one",
          OrderingService.describe(hosted.role.color()),
          Arrays.toString(lacking));
      take(hosted, topology.version(), lacking);
    } else if (!tables.marksKept(hosted)) {
      tables.saveMarks(hosted);
    }
  }

  /**
   * Whether no leader of the role can have issued an SN of its color yet: with leases, none was
   * ever taken (the topology names no role epoch); without, this is the node's first process (the
   * role never leaves the node).
   */
  private boolean neverIssued(OrderingTables.HostedColor hosted) {
    return tables.committedRoleEpoch(hosted) == 0
        && (tables.leased() || incarnation == FIRST_INCARNATION);
  }

  private static int[] subtreeShardIds(OrderingRole role) {
    int[] ids = new int[role.shardCount()];
    for (int slot = 0; slot < ids.length; slot++) {
      ids[slot] = role.shardId(slot);
    }
    return ids;
  }

  /**
   * Takes a join mark of a hosted color for the shards {@code joined} that joined its subtree, the
   * next SN the role issues (every SN issued so far is below it, every SN a new shard can get is at
   * or above it, also after an epoch change), and sends it to the replicas of the subtree's other
   * shards and down the child edges, behind everything already written to them and ahead of every
   * later watermark (docs/architecture.md#subscribe). The new shards' replicas need none: a
   * subscriber that streams from one already has a topology with them. Does nothing when a mark of
   * {@code topologyVersion} is already kept.
   */
  void take(OrderingTables.HostedColor hosted, long topologyVersion, int[] joined) {
    OrderingRole role = hosted.role;
    long markSn = role.watermark() + 1;
    if (!hosted.marks.add(topologyVersion, markSn, joined)) {
      return;
    }
    // Durable before anyone hears of it and before any SN at or above it is issued: a process that
    // restarts (or the node the role comes back to) repeats it to the replicas that were down.
    tables.saveMarks(hosted);
    broadcaster.writeMark(role.colorId(), topologyVersion, markSn, role, joined);
    childLinks.writeMark(role.colorId(), topologyVersion, markSn, hosted.edges);
    LOG.info(
        "color {}: subtree has {} shards at topology version {}; join mark at SN {}",
        OrderingService.describe(role.color()),
        role.shardCount(),
        topologyVersion,
        Sn.describe(markSn));
  }
}
