package io.flexlog.replica.replication;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.replica.storage.LogStorage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TRIM (docs/architecture.md#trim): records a color's trim point durably and answers TRIM_RESPONSE
 * with the new trim point and this replica's tail of the color. Refuses an unknown color, a color
 * with no shard on this node, and an SN beyond the tail: the largest SN of the color this replica
 * knows to be assigned, over its shards in the color's subtree (committed here, or covered by
 * {@code committedThrough}).
 *
 * <p>Threading: the replica's event loop.
 */
final class Trims {
  private static final Logger LOG = LoggerFactory.getLogger(Trims.class);

  private final ShardLogs shards;
  private final LogStorage storage;
  private final ReplicaPublisher publisher;
  private final Counter trims;

  Trims(ShardLogs shards, LogStorage storage, ReplicaPublisher publisher, MeterRegistry registry) {
    this.shards = shards;
    this.storage = storage;
    this.publisher = publisher;
    this.trims =
        Counter.builder("flexlog.replica.trims")
            .tag("node", Integer.toString(shards.nodeId()))
            .description("TRIM requests applied")
            .register(registry);
  }

  /**
   * TAIL_REQUEST: the color's trim point here and the largest SN of the color this replica knows to
   * be assigned (docs/architecture.md#head-and-tail).
   */
  void onTailRequest(Connection c, long requestId, int colorId) {
    long tail = hostedTail(c, requestId, colorId);
    if (tail >= 0) {
      publisher.tail(c, requestId, colorId, storage.trimPoint(colorId), tail);
    }
  }

  /**
   * The largest SN of the color assigned on this replica's shards of its subtree, or -1 after
   * answering an error (an unknown color, no such shard here).
   */
  private long hostedTail(Connection c, long requestId, int colorId) {
    if (!shards.knowsColor(colorId)) {
      publisher.error(c, requestId, ErrorCode.UNKNOWN_COLOR, "unknown color id " + colorId);
      return -1;
    }
    boolean hosted = false;
    long tail = Sn.NONE;
    for (Shard shard : shards.hosted()) {
      if (shards.topology().isInSubtree(shard.colorId(), colorId)) {
        hosted = true;
        tail = Math.max(tail, shards.tail(shard.id(), colorId));
      }
    }
    if (!hosted) {
      publisher.error(
          c,
          requestId,
          ErrorCode.UNKNOWN_SHARD,
          "replica node " + shards.nodeId() + " hosts no shard of color id " + colorId);
      return -1;
    }
    return tail;
  }

  void onTrim(Connection c, long requestId, int colorId, long sn) {
    int nodeId = shards.nodeId();
    long tail = hostedTail(c, requestId, colorId);
    if (tail < 0) {
      return;
    }
    if (sn < 0) {
      publisher.error(c, requestId, ErrorCode.INVALID_ARGUMENT, "trim SN must be >= 0, got " + sn);
      return;
    }
    if (sn > tail) {
      publisher.error(
          c,
          requestId,
          ErrorCode.INVALID_ARGUMENT,
          "trim beyond the tail of color id "
              + colorId
              + " on replica node "
              + nodeId
              + ": SN "
              + sn
              + " > tail "
              + tail);
      return;
    }
    try {
      storage.trim(colorId, sn);
    } catch (RuntimeException e) {
      LOG.error("replica {} failed to trim color id {} at SN {}", nodeId, colorId, sn, e);
      publisher.error(
          c,
          requestId,
          ErrorCode.INTERNAL,
          "replica node " + nodeId + " failed to record the trim point: " + e.getMessage());
      return;
    }
    trims.increment();
    publisher.trimmed(c, requestId, colorId, storage.trimPoint(colorId), tail);
  }
}
