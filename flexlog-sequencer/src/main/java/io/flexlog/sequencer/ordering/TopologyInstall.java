package io.flexlog.sequencer.ordering;

import io.flexlog.core.model.Topology;
import org.agrona.collections.Int2IntHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the {@link OrderingService} takes a newer topology
 * (docs/architecture.md#ordering-in-the-sequencer-tree): checks it with {@link TopologyChange},
 * installs it in the {@link OrderingTables} and the {@link ReplicaRegistry}, has the {@link
 * JoinMarkTaker} take a join mark for every hosted color whose subtree gained shards, or that lacks
 * one its former leader took (docs/architecture.md#join-marks), lets the parent and child links
 * follow, and after a failover lets the routes follow the moved roles ({@link TreeHealing}). Like
 * the service, it touches no socket: frames go through the mark taker and the links, and the end of
 * the turn is scheduled through the service.
 *
 * <p>Logs under the {@code OrderingService} logger, so that one logger setting covers all of the
 * node's ordering lines. Threading: the node's event loop, like the service.
 */
final class TopologyInstall {
  private static final Logger LOG = LoggerFactory.getLogger(OrderingService.class);

  private final int nodeId;
  private final OrderingTables tables;
  private final ReplicaRegistry registry;
  private final JoinMarkTaker markTaker;
  private final ChildLinks childLinks;
  private final ParentLinks parentLinks;
  private final TreeHealing healing;
  private final Runnable scheduleEndOfTurn;

  TopologyInstall(
      int nodeId,
      OrderingTables tables,
      ReplicaRegistry registry,
      JoinMarkTaker markTaker,
      ChildLinks childLinks,
      ParentLinks parentLinks,
      Runnable scheduleEndOfTurn) {
    this.nodeId = nodeId;
    this.tables = tables;
    this.registry = registry;
    this.markTaker = markTaker;
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
      // A role whose marks are not checked yet (it may lack its former leader's last one) takes
      // no mark of its own before the check: the check's mark covers the shards joining now too.
      markTaker.takeLost(hosted);
      int before = shardsBefore.get(hosted.role.colorId());
      if (!hosted.marksUnchecked && before >= 0 && hosted.role.shardCount() > before) {
        markTaker.take(hosted, newer.version(), joinedSince(hosted.role, before));
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

  private static int[] joinedSince(OrderingRole role, int slotsBefore) {
    int[] joined = new int[role.shardCount() - slotsBefore];
    for (int slot = slotsBefore; slot < role.shardCount(); slot++) {
      joined[slot - slotsBefore] = role.shardId(slot);
    }
    return joined;
  }
}
