package io.flexlog.replica.replication;

import io.flexlog.core.protocol.OrderResponseDescriptor;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replica's fence for ORDER_RESPONSE frames (docs/architecture.md#fencing): an answer is taken
 * only from the node this replica's newest topology names as the leader of the shard's role, and,
 * after the role moved, only from that node's next WELCOME on. Once a topology with a newer role
 * epoch names another node, the old leader's answers are dropped and counted ({@code
 * flexlog.replica.fenced}); the SNs of the ones taken go to the {@link AppendPath}.
 *
 * <p>Threading: the engine's event loop.
 */
final class OrderResponses {
  private static final Logger LOG = LoggerFactory.getLogger(OrderResponses.class);

  private final int nodeId;
  private final ShardLogs shards;
  private final AppendPath appends;

  /** Order responses dropped by the fence; event loop only, read by the meter. */
  private long fenced;

  OrderResponses(int nodeId, ShardLogs shards, AppendPath appends, MeterRegistry registry) {
    this.nodeId = nodeId;
    this.shards = shards;
    this.appends = appends;
    FunctionCounter.builder("flexlog.replica.fenced", this, r -> r.fenced)
        .tag("node", Integer.toString(nodeId))
        .description(
            "order responses dropped because they came from a sequencer node that the replica's"
                + " topology no longer names as the leader of the shard's role, or from its new"
                + " leader before that node's WELCOME after the role moved")
        .register(registry);
  }

  /**
   * ORDER_RESPONSE from sequencer node {@code sequencerId}.
   *
   * @return true when its SNs were handed to the append path (the turn should end soon), false when
   *     the frame was dropped
   */
  boolean onOrderResponse(int sequencerId, ByteBuf frame) {
    int colorId = OrderResponseDescriptor.colorId(frame);
    int shardId = OrderResponseDescriptor.shardId(frame);
    if (!shards.hosts(shardId)) {
      LOG.warn("ORDER_RESPONSE for shard {} which node {} does not host", shardId, nodeId);
      return false;
    }
    if (shards.sequencerOf(shardId) != sequencerId) {
      fenced++;
      if (fenced == 1 || Long.bitCount(fenced) == 1) {
        LOG.warn(
            "replica {}: dropped ORDER_RESPONSE for shard {} from sequencer node {}: topology {}"
                + " names node {} as the leader of its role ({} dropped so far)",
            nodeId,
            shardId,
            sequencerId,
            shards.topology().version(),
            shards.sequencerOf(shardId),
            fenced);
      }
      return false;
    }
    if (shards.awaitsWelcome(shardId)) {
      // Sent before the leader answered the HELLO said after the role moved to it: possibly by an
      // earlier tenure of the role on that node, whose SNs the new tenure does not know.
      fenced++;
      LOG.debug(
          "replica {}: dropped ORDER_RESPONSE for shard {} from sequencer node {} before its"
              + " WELCOME after the role moved",
          nodeId,
          shardId,
          sequencerId);
      return false;
    }
    int count = OrderResponseDescriptor.count(frame);
    for (int i = 0; i < count; i++) {
      appends.onAssigned(
          shardId,
          colorId,
          OrderResponseDescriptor.tokenSession(frame, i),
          OrderResponseDescriptor.tokenSequence(frame, i),
          OrderResponseDescriptor.sn(frame, i));
    }
    return true;
  }
}
