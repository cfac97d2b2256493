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
 * {@code committedThrough}). A TRIM from the replica that decides a color's retention (its request
 * id in {@link RetentionPolicy}'s range) is also refused beyond what this replica has committed on
 * each of its shards of the subtree, so retention never removes a record a replica has not
 * committed (docs/architecture.md#retention). Before any trim point moves, {@link TrimmedTokens}
 * keeps the tokens of the records it removes, so that a restart still recognizes them; a trim whose
 * tokens cannot be kept fails (docs/architecture.md#retention, "Trimmed tokens").
 *
 * <p>Threading: the replica's event loop.
 */
final class Trims {
  private static final Logger LOG = LoggerFactory.getLogger(Trims.class);

  private final ShardLogs shards;
  private final LogStorage storage;
  private final TrimmedTokens trimmedTokens;
  private final ReplicaPublisher publisher;
  private final Counter trims;
  private final Counter adopted;

  Trims(
      ShardLogs shards,
      LogStorage storage,
      TrimmedTokens trimmedTokens,
      ReplicaPublisher publisher,
      MeterRegistry registry) {
    this.shards = shards;
    this.storage = storage;
    this.trimmedTokens = trimmedTokens;
    this.publisher = publisher;
    this.trims =
        Counter.builder("flexlog.replica.trims")
            .tag("node", Integer.toString(shards.nodeId()))
            .description("TRIM requests applied")
            .register(registry);
    this.adopted =
        Counter.builder("flexlog.replica.trims.adopted")
            .tag("node", Integer.toString(shards.nodeId()))
            .description("trim points taken from a peer that trimmed an SN this replica awaited")
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
    long tail = tail(colorId);
    if (tail < 0) {
      publisher.error(
          c,
          requestId,
          ErrorCode.UNKNOWN_SHARD,
          "replica node " + shards.nodeId() + " hosts no shard of color id " + colorId);
    }
    return tail;
  }

  /** The largest SN of the color assigned on this replica's shards of its subtree; -1: none. */
  private long tail(int colorId) {
    boolean hosted = false;
    long tail = Sn.NONE;
    for (Shard shard : shards.hosted()) {
      if (shards.topology().isInSubtree(shard.colorId(), colorId)) {
        hosted = true;
        tail = Math.max(tail, shards.tail(shard.id(), colorId));
      }
    }
    return hosted ? tail : -1;
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
    if (RetentionPolicy.isRetentionTrim(requestId) && sn > committedThrough(colorId)) {
      publisher.error(
          c,
          requestId,
          ErrorCode.INVALID_ARGUMENT,
          "retention trim of color id "
              + colorId
              + " at SN "
              + sn
              + " is beyond what replica node "
              + nodeId
              + " has committed ("
              + committedThrough(colorId)
              + "); try again later");
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
      trimmedTokens.beforeTrim(colorId, sn);
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
    shards.discardTrimmed(colorId, storage.trimPoint(colorId));
    trims.increment();
    publisher.trimmed(c, requestId, colorId, storage.trimPoint(colorId), tail);
  }

  /**
   * A trim decided here by {@link RetentionPolicy}: the same durable trim point as TRIM, applied
   * only up to what this replica has committed on every shard of the color's subtree it hosts.
   *
   * @return true if the trim point is at {@code sn} or beyond afterwards
   */
  boolean applyRetention(int colorId, long sn) {
    if (sn <= storage.trimPoint(colorId)) {
      return true;
    }
    if (!shards.knowsColor(colorId) || sn > committedThrough(colorId)) {
      return false;
    }
    try {
      trimmedTokens.beforeTrim(colorId, sn);
      storage.trim(colorId, sn);
    } catch (RuntimeException e) {
      LOG.error(
          "replica {} failed to trim color id {} at SN {} for retention",
          shards.nodeId(),
          colorId,
          sn,
          e);
      return false;
    }
    shards.discardTrimmed(colorId, storage.trimPoint(colorId));
    return true;
  }

  /**
   * A peer answered this replica's fill of an awaited SN with a trim point at or beyond it: the
   * record is gone from the peer, which committed it, so no replica will ever send it here. This
   * replica takes the peer's trim point (up to its own tail, like TRIM, or to the awaited SN if
   * that is higher: it is assigned), which also drops the SNs it awaits there; it had refused or
   * missed that trim, typically a retention trim beyond its own {@code committedThrough}
   * (docs/architecture.md#sync-phase, "Fill").
   *
   * @return true if the trim point moved
   */
  boolean adoptPeerTrim(int colorId, long peerTrimPoint, int peerNodeId, long awaitedSn) {
    long through = Math.min(peerTrimPoint, Math.max(tail(colorId), awaitedSn));
    if (through <= storage.trimPoint(colorId)) {
      return false;
    }
    try {
      trimmedTokens.beforeTrim(colorId, through);
      storage.trim(colorId, through);
    } catch (RuntimeException e) {
      LOG.error(
          "replica {} failed to trim color id {} at SN {} after replica node {} trimmed it",
          shards.nodeId(),
          colorId,
          Sn.describe(through),
          peerNodeId,
          e);
      return false;
    }
    LOG.info(
        "replica {}: SN {} of color id {} never arrived here and replica node {} trimmed it (trim"
            + " point {}); trimmed here through {}",
        shards.nodeId(),
        Sn.describe(awaitedSn),
        colorId,
        peerNodeId,
        Sn.describe(peerTrimPoint),
        Sn.describe(storage.trimPoint(colorId)));
    shards.discardTrimmed(colorId, storage.trimPoint(colorId));
    adopted.increment();
    return true;
  }

  /**
   * The largest SN through which every shard of the color's subtree hosted here has committed every
   * SN assigned to it ({@code committedThrough}); {@link Long#MAX_VALUE} when none is hosted.
   */
  private long committedThrough(int colorId) {
    long through = Long.MAX_VALUE;
    for (Shard shard : shards.hosted()) {
      if (shards.topology().isInSubtree(shard.colorId(), colorId)) {
        through = Math.min(through, shards.log(shard.id(), colorId).committedThrough());
      }
    }
    return through;
  }
}
