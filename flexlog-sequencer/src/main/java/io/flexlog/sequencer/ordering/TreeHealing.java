package io.flexlog.sequencer.ordering;

import io.flexlog.core.model.Shard;
import io.flexlog.core.util.TokenLongMap;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a node follows a failover in the sequencer tree (docs/architecture.md#sequencer-failover,
 * "the tree heals"), after {@link OrderingTables#install} applied a topology in which a role moved:
 *
 * <ul>
 *   <li>A route whose parent role moved to another node, or to a larger role epoch, moves its
 *       unanswered range requests to the new parent ({@link ParentLinks#retarget}).
 *   <li>A route this node no longer has (it took the role its requests climbed to, or the path now
 *       leaves over another edge) hands the tokens of its unanswered requests to whatever orders
 *       them now: the role here or the new route, which also keeps the SNs the route was answered,
 *       for late duplicates. Its child requests are refused (ERROR with their ids), so the child
 *       nodes send them again and they take the new path.
 *   <li>A role handed to another node does the same with its unpublished batch: tokens of shards
 *       whose color is still hosted here climb the new route, which keeps the SNs the role gave;
 *       ranges of child nodes are refused.
 * </ul>
 *
 * Tokens of shards whose color left this node are dropped, also those a role that stays here still
 * holds (its gate was closed or its epoch exhausted): their replicas fence this node and order them
 * with the new leader after their sync phase (docs/architecture.md#fencing). Every token handed on
 * is still unanswered here, so it gets exactly one SN from this node; the old parent's range for
 * it, if any, is never delivered (holes).
 *
 * <p>Logs under the {@code OrderingService} logger. Threading: the node's event loop.
 */
final class TreeHealing {
  private static final Logger LOG = LoggerFactory.getLogger(OrderingService.class);

  private final int nodeId;
  private final OrderingTables tables;
  private final ParentLinks parentLinks;
  private final ChildLinks childLinks;

  TreeHealing(int nodeId, OrderingTables tables, ParentLinks parentLinks, ChildLinks childLinks) {
    this.nodeId = nodeId;
    this.tables = tables;
    this.parentLinks = parentLinks;
    this.childLinks = childLinks;
  }

  /** Follows {@code changes}; the parent sessions of the new topology must exist already. */
  void apply(OrderingTables.Changes changes) {
    for (OrderingRole role : changes.droppedRoles()) {
      int handed = handOn(role.colorId(), role, role.batch());
      int kept = keepAnswers(role.colorId(), role, role::forEachAnswered);
      childLinks.answer(role.colorId(), role.ranges());
      LOG.info(
          "node {}: role of color {} left this node; {} token(s) handed on, {} answered one(s)"
              + " kept, {} child request(s) refused for a retry",
          nodeId,
          OrderingService.describe(role.color()),
          handed,
          kept,
          role.ranges().size());
      role.clearBatch();
    }
    if (!changes.droppedRoles().isEmpty()) {
      dropTokensOfDepartedShards();
    }
    for (int i = 0; i < changes.retargeted().size(); i++) {
      parentLinks.retarget(changes.retargeted().get(i), changes.formerParents().get(i));
    }
    for (ForwardRoute route : changes.retired()) {
      List<UpwardBatch> batches = parentLinks.withdraw(route);
      int handed = 0;
      int refused = 0;
      for (UpwardBatch batch : batches) {
        handed += handOn(route.colorId(), route, batch.tokens);
        refused += batch.children.size();
        childLinks.answer(route.colorId(), batch.children);
      }
      int kept = keepAnswers(route.colorId(), route, route::forEachAnswered);
      LOG.info(
          "node {}: {} is gone; {} unanswered token(s) handed on, {} answered one(s) kept, {} child"
              + " request(s) refused for a retry",
          nodeId,
          route,
          handed,
          kept,
          refused);
    }
  }

  /** Offers the unanswered tokens of {@code batch} to what orders {@code colorId} for them now. */
  // A role that stays here may hold tokens across turns (closed gate, exhausted epoch) of shards
  // whose own color just left this node: they go the way of the departed role's batch.
  private void dropTokensOfDepartedShards() {
    for (OrderingTables.HostedColor hosted : tables.hostedColors()) {
      int dropped =
          hosted.role.dropTokensOfShards(
              shardId -> {
                Shard shard = tables.topology().shard(shardId).orElse(null);
                return shard == null || tables.hosted(shard.colorId()) == null;
              });
      if (dropped > 0) {
        LOG.info(
            "node {}: role of color {} dropped {} waiting token(s) of shards whose color left this"
                + " node",
            nodeId,
            OrderingService.describe(hosted.role.color()),
            dropped);
      }
    }
  }

  /**
   * The SNs a route that is gone was answered stay answered on this node: what orders its shards'
   * tokens now remembers them, so a request the route's replica sent before the answer reached it,
   * and which arrives after the route went, gets the same SN again instead of a second one (found
   * by the failover simulation, seeds 15000118 and 16000847).
   *
   * @return how many answers were kept
   */
  private int keepAnswers(int colorId, ShardSlots slots, Consumer<TokenLongMap.Visitor> answers) {
    List<TokenOrderer> orderers = new ArrayList<>();
    for (int slot = 0; slot < slots.shardCount(); slot++) {
      TokenOrderer orderer = ordererOf(colorId, slots.shardId(slot));
      if (orderer != null && !orderers.contains(orderer)) {
        orderers.add(orderer);
      }
    }
    int[] kept = {0};
    for (TokenOrderer orderer : orderers) {
      answers.accept(
          (hi, lo, sn) -> {
            orderer.remember(hi, lo, sn);
            kept[0]++;
          });
    }
    return kept[0];
  }

  /**
   * What orders tokens of shard {@code shardId} in {@code colorId} now: the role here or the route
   * that climbs to it; null when the shard's color left this node (its replicas order them with the
   * new leader after their sync phase).
   */
  private TokenOrderer ordererOf(int colorId, int shardId) {
    Shard shard = tables.topology().shard(shardId).orElse(null);
    if (shard == null || tables.hosted(shard.colorId()) == null) {
      return null;
    }
    OrderingTables.HostedColor hosted = tables.hosted(colorId);
    return hosted != null ? hosted.role : tables.route(shard.colorId(), colorId);
  }

  private int handOn(int colorId, ShardSlots slots, ColorBatch batch) {
    int handed = 0;
    for (int k = 0; k < batch.activeSlotCount(); k++) {
      int slot = batch.activeSlot(k);
      TokenOrderer orderer = null;
      int newSlot = -1;
      int shardId = slots.shardId(slot);
      orderer = ordererOf(colorId, shardId);
      if (orderer instanceof OrderingRole role) {
        newSlot = role.shardSlot(shardId);
      } else if (orderer instanceof ForwardRoute route) {
        newSlot = route.shardSlot(shardId);
      }
      if (orderer == null || newSlot < 0) {
        continue; // the shard's replicas moved with its role; they order the tokens there
      }
      for (int j = 0; j < batch.entryCount(slot); j++) {
        int entry = batch.entry(slot, j);
        if (batch.sn(entry) <= 0) {
          // An SN already known there was sent to the shard's replicas when it was given.
          orderer.offer(newSlot, batch.hi(entry), batch.lo(entry));
          handed++;
        }
      }
    }
    return handed;
  }
}
