package io.flexlog.sequencer.ordering;

import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import org.agrona.collections.Int2IntHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the {@link OrderingService} takes a newer topology
 * (docs/architecture.md#ordering-in-the-sequencer-tree): checks it with {@link TopologyChange},
 * installs it in the {@link OrderingTables} and the {@link ReplicaRegistry}, writes a join mark for
 * every hosted color whose subtree gained shards (docs/architecture.md#subscribe), lets the parent
 * and child links follow, and after a failover lets the routes follow the moved roles ({@link
 * TreeHealing}). Like the service, it touches no socket: frames go through the {@link Broadcaster}
 * and the links, and the end of the turn is scheduled through the service.
 *
 * <p>Logs under the {@code OrderingService} logger, so that one logger setting covers all of the
 * node's ordering lines. Threading: the node's event loop, like the service.
 */
final class TopologyInstall {
  private static final Logger LOG = LoggerFactory.getLogger(OrderingService.class);

  private final int nodeId;
  private final OrderingTables tables;
  private final ReplicaRegistry registry;
  private final Broadcaster broadcaster;
  private final ChildLinks childLinks;
  private final ParentLinks parentLinks;
  private final TreeHealing healing;
  private final Runnable scheduleEndOfTurn;

  TopologyInstall(
      int nodeId,
      OrderingTables tables,
      ReplicaRegistry registry,
      Broadcaster broadcaster,
      ChildLinks childLinks,
      ParentLinks parentLinks,
      Runnable scheduleEndOfTurn) {
    this.nodeId = nodeId;
    this.tables = tables;
    this.registry = registry;
    this.broadcaster = broadcaster;
    this.childLinks = childLinks;
    this.parentLinks = parentLinks;
    this.healing = new TreeHealing(nodeId, tables, parentLinks, childLinks);
    this.scheduleEndOfTurn = scheduleEndOfTurn;
  }

  /**
   * Applies a newer topology: roles for newly hosted colors, routes for new colors and shards,
   * connections to new parents. Ignores versions not newer than the current one, and refuses (with
   * an error in the log) one that moves existing colors or shards.
   */
  void apply(Topology newer) {
    Topology current = tables.topology();
    if (!TopologyChange.isNewer(current, newer)) {
      LOG.debug(
          "node {} ignores topology version {} (has {})",
          nodeId,
          newer.version(),
          current.version());
      return;
    }
    String problem = TopologyChange.problem(current, newer, nodeId);
    if (problem != null) {
      LOG.error("node {} refuses topology version {}: {}", nodeId, newer.version(), problem);
      return;
    }
    // By color: a failover may take a hosted role away.
    Int2IntHashMap shardsBefore = new Int2IntHashMap(-1);
    for (OrderingTables.HostedColor hosted : tables.hostedColors()) {
      shardsBefore.put(hosted.role.colorId(), hosted.role.shardCount());
    }
    OrderingTables.Changes changes = tables.install(newer);
    registry.update(newer);
    for (OrderingTables.HostedColor hosted : tables.hostedColors()) {
      int before = shardsBefore.get(hosted.role.colorId());
      if (before >= 0 && hosted.role.shardCount() > before) {
        writeJoinMark(hosted, newer.version(), before);
      }
    }
    parentLinks.install();
    healing.apply(changes);
    parentLinks.onTopologyChanged();
    childLinks.onTopologyChanged();
    scheduleEndOfTurn.run();
    LOG.info(
        "sequencer node {} now at topology version {}, hosting {}",
        nodeId,
        newer.version(),
        tables.routing().hostedColors());
  }

  /**
   * The subtree of a hosted color gained shards: takes the join mark, the next SN the role issues
   * (every SN issued so far is below it, every SN a new shard can get is at or above it, also after
   * an epoch change), and sends it to the replicas of the shards that were in the subtree before
   * and down the child edges, behind everything already written to them and ahead of every later
   * watermark (docs/architecture.md#subscribe). The new shards' replicas need none: a subscriber
   * that streams from one already has a topology with them.
   */
  private void writeJoinMark(
      OrderingTables.HostedColor hosted, long topologyVersion, int slotsBefore) {
    OrderingRole role = hosted.role;
    long markSn = role.watermark() + 1;
    int[] joined = new int[role.shardCount() - slotsBefore];
    for (int slot = slotsBefore; slot < role.shardCount(); slot++) {
      joined[slot - slotsBefore] = role.shardId(slot);
    }
    if (!hosted.marks.add(topologyVersion, markSn, joined)) {
      return;
    }
    // Durable before anyone hears of it and before any SN at or above it is issued: a process that
    // restarts (or the node the role comes back to) repeats it to the replicas that were down.
    tables.saveMarks(hosted);
    broadcaster.writeMark(role.colorId(), topologyVersion, markSn, role, slotsBefore);
    childLinks.writeMark(role.colorId(), topologyVersion, markSn, hosted.edges);
    LOG.info(
        "color {}: subtree has {} shards at topology version {}; join mark at SN {}",
        OrderingService.describe(role.color()),
        role.shardCount(),
        topologyVersion,
        Sn.describe(markSn));
  }
}
