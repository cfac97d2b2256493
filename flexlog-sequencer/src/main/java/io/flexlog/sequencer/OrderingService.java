package io.flexlog.sequencer;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.HelloDescriptor;
import io.flexlog.core.protocol.OrderRequestDescriptor;
import io.flexlog.core.protocol.OrderResponseDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.agrona.collections.Int2ObjectHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node-level ordering state: the hosted roles, the replica registry and the turn-based batching
 * (DESIGN §3.1).
 *
 * <p>Batching: the first order request of an event-loop turn schedules {@link #endTurn} on the
 * loop. Netty runs tasks after it has processed every ready connection of the turn, so all requests
 * that arrived together (from any connection) land in one batch per color. The batch is then
 * assigned SNs, broadcast per shard, followed by one watermark per color, and each touched
 * connection is flushed once.
 *
 * <p>Threading contract: every method must be called on {@code loop}, the single event loop that
 * owns every connection of the node. That confinement is why no state here is locked.
 */
final class OrderingService {
  private static final Logger LOG = LoggerFactory.getLogger(OrderingService.class);

  private final int nodeId;
  private final EventLoop loop;
  private final SequencerMetrics metrics;
  private final Int2ObjectHashMap<OrderingRole> roles = new Int2ObjectHashMap<>();
  private Topology topology;
  private OrderingRole[] roleList;
  private SequencerMetrics.RoleMeters[] roleMeters;
  private final ReplicaRegistry registry;
  private final Broadcaster broadcaster;
  private final Runnable endTurnTask = this::endTurn;
  private boolean turnScheduled;

  // Scratch for duplicate answers, reused so that retries do not allocate.
  private long[] duplicateSns = new long[16];
  private int[] duplicateIndexes = new int[16];

  OrderingService(
      int nodeId,
      Topology topology,
      List<OrderingRole> hostedRoles,
      SequencerMetrics metrics,
      Broadcaster broadcaster,
      ReplicaRegistry registry,
      EventLoop loop) {
    this.nodeId = nodeId;
    this.topology = topology;
    this.metrics = metrics;
    this.loop = loop;
    this.registry = registry;
    this.broadcaster = broadcaster;
    this.roleList = hostedRoles.toArray(new OrderingRole[0]);
    this.roleMeters = new SequencerMetrics.RoleMeters[roleList.length];
    for (int i = 0; i < roleList.length; i++) {
      roles.put(roleList[i].colorId(), roleList[i]);
      roleMeters[i] = metrics.forColor(roleList[i].color().name());
    }
  }

  /** The topology this node serves (METADATA_RESPONSE); the latest one applied. */
  Topology topology() {
    return topology;
  }

  /**
   * Applies a newer topology: registers its new shards, adds the shards that joined the subtree of
   * a hosted color to that role, and starts {@code newRoles} (the colors newly hosted here).
   */
  void updateTopology(Topology next, List<OrderingRole> newRoles) {
    registry.addShards(next);
    for (OrderingRole role : roleList) {
      for (io.flexlog.core.model.Shard shard : next.shardsInSubtree(role.colorId())) {
        role.addShard(shard.id());
      }
    }
    int start = roleList.length;
    roleList = Arrays.copyOf(roleList, start + newRoles.size());
    roleMeters = Arrays.copyOf(roleMeters, roleList.length);
    for (int i = 0; i < newRoles.size(); i++) {
      OrderingRole role = newRoles.get(i);
      roleList[start + i] = role;
      roleMeters[start + i] = metrics.forColor(role.color().name());
      roles.put(role.colorId(), role);
    }
    topology = next;
  }

  /** True when this node already runs the role of {@code colorId}. */
  boolean hosts(int colorId) {
    return roles.containsKey(colorId);
  }

  /**
   * HELLO: registers the connection for the named shards and writes the current watermark of every
   * hosted color whose subtree holds one of them.
   *
   * @return null on success, or why the HELLO was refused (nothing is registered then)
   */
  Rejection onHello(ReplicaLink link, ByteBuf frame) {
    int[] shardIds = HelloDescriptor.shardIds(frame);
    Rejection rejection = registry.register(link, HelloDescriptor.replicaNodeId(frame), shardIds);
    if (rejection == null) {
      sendWatermarks(link, shardIds);
    }
    return rejection;
  }

  /**
   * ORDER_REQUEST: deduplicates the tokens, batches the new ones for this turn and answers tokens
   * that already have an SN to this connection only. A connection that sends no HELLO is registered
   * implicitly by the request's replica and shard ids.
   *
   * @return null when accepted, or why the request was refused (no token was considered then)
   */
  Rejection onOrderRequest(ReplicaLink link, ByteBuf frame) {
    int colorId = OrderRequestDescriptor.colorId(frame);
    OrderingRole role = roles.get(colorId);
    if (role == null) {
      return unknownColor(colorId);
    }
    int shardId = OrderRequestDescriptor.shardId(frame);
    if (registry.targets(shardId) == null) {
      return new Rejection(ErrorCode.UNKNOWN_SHARD, "unknown shard id " + shardId);
    }
    int slot = role.shardSlot(shardId);
    if (slot < 0) {
      return new Rejection(
          ErrorCode.INVALID_ARGUMENT,
          "shard " + shardId + " is outside the subtree of color " + describe(role.color()));
    }
    if (!link.isIdentified()) {
      int[] shard = {shardId};
      Rejection rejection =
          registry.register(link, OrderRequestDescriptor.replicaNodeId(frame), shard);
      if (rejection != null) {
        return rejection;
      }
      sendWatermarks(link, shard);
    }
    offerTokens(link, role, slot, frame);
    return null;
  }

  private void offerTokens(ReplicaLink link, OrderingRole role, int slot, ByteBuf frame) {
    int count = OrderRequestDescriptor.count(frame);
    int duplicates = 0;
    boolean added = false;
    for (int i = 0; i < count; i++) {
      long hi = OrderRequestDescriptor.tokenSession(frame, i);
      long lo = OrderRequestDescriptor.tokenSequence(frame, i);
      long result = role.offer(slot, hi, lo);
      if (result > 0) {
        if (duplicates == duplicateSns.length) {
          duplicateSns = Arrays.copyOf(duplicateSns, duplicates * 2);
          duplicateIndexes = Arrays.copyOf(duplicateIndexes, duplicates * 2);
        }
        duplicateSns[duplicates] = result;
        duplicateIndexes[duplicates++] = i;
      } else if (result == OrderingRole.ACCEPTED) {
        added = true;
      }
    }
    if (duplicates > 0) {
      answerDuplicates(link, role.colorId(), frame, duplicates);
    }
    if (added || duplicates > 0) {
      scheduleEndOfTurn();
    }
  }

  // Already-ordered tokens: only the asking replica lacks the answer (it reconnected or retried).
  private void answerDuplicates(ReplicaLink link, int colorId, ByteBuf request, int duplicates) {
    int shardId = OrderRequestDescriptor.shardId(request);
    ByteBuf response =
        OrderResponseDescriptor.encodeHeader(broadcaster.alloc(), colorId, shardId, duplicates);
    for (int d = 0; d < duplicates; d++) {
      int i = duplicateIndexes[d];
      OrderResponseDescriptor.writeEntry(
          response,
          OrderRequestDescriptor.tokenSession(request, i),
          OrderRequestDescriptor.tokenSequence(request, i),
          duplicateSns[d]);
    }
    broadcaster.write(link, response);
  }

  /** Forgets a closed connection. */
  void onDisconnect(ReplicaLink link) {
    registry.unregister(link);
  }

  private void scheduleEndOfTurn() {
    if (!turnScheduled) {
      turnScheduled = true;
      loop.execute(endTurnTask);
    }
  }

  /**
   * Ends the turn: per hosted color, assigns SNs to the batch and publishes it (responses, then the
   * watermark); finally flushes every connection written to. Also called on close to publish
   * whatever is still batched.
   */
  void endTurn() {
    turnScheduled = false;
    for (int r = 0; r < roleList.length; r++) {
      if (!roleList[r].batch().isEmpty()) {
        publishBatch(roleList[r], roleMeters[r]);
      }
    }
    broadcaster.flushDirty();
  }

  private void publishBatch(OrderingRole role, SequencerMetrics.RoleMeters meters) {
    boolean failed = false;
    try {
      role.assignBatch();
    } catch (RuntimeException e) {
      // Only an epoch that cannot be made durable gets here; SNs already assigned are still
      // published so that the watermark never covers an SN its replicas were not told about.
      LOG.error(
          "color {}: cannot assign SNs, dropping the rest of the batch", describe(role.color()), e);
      failed = true;
    }
    broadcaster.publish(role);
    meters.recordBatch(assignedCount(role.batch()));
    if (failed) {
      role.abortBatch();
    } else {
      role.clearBatch();
    }
  }

  private static int assignedCount(ColorBatch batch) {
    int assigned = 0;
    for (int i = 0; i < batch.size(); i++) {
      if (batch.sn(i) > 0) {
        assigned++;
      }
    }
    return assigned;
  }

  private void sendWatermarks(ReplicaLink link, int[] shardIds) {
    boolean wrote = false;
    for (OrderingRole role : roleList) {
      for (int shardId : shardIds) {
        if (role.shardSlot(shardId) >= 0) {
          broadcaster.writeWatermark(link, role);
          wrote = true;
          break;
        }
      }
    }
    if (wrote) {
      scheduleEndOfTurn();
    }
  }

  private Rejection unknownColor(int colorId) {
    String message =
        topology
            .color(colorId)
            .map(
                c ->
                    "color "
                        + describe(c)
                        + " is ordered by sequencer node "
                        + c.sequencerId()
                        + ", not by node "
                        + nodeId)
            .orElse("unknown color id " + colorId);
    return new Rejection(ErrorCode.UNKNOWN_COLOR, message);
  }

  private static String describe(Color color) {
    return color.id() + " ('" + color.name() + "')";
  }

  /** The current watermark of every hosted color, for logs: {@code name=epoch.counter}. */
  List<String> describeWatermarks() {
    List<String> out = new ArrayList<>();
    for (OrderingRole role : roleList) {
      out.add(role.color().name() + "=" + Sn.describe(role.watermark()));
    }
    return out;
  }
}
