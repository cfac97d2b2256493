package io.flexlog.replica.replication;

import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.agrona.collections.Int2IntHashMap;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.IntHashSet;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * The shards a replica node hosts under the latest topology it applied, and one {@link ColorLog}
 * per (shard, color) with records there: the SN index, {@code committedThrough}, the blind ranges
 * and the join marks. Watermarks, join marks and lost sequencer links land here; every other state
 * machine reads it.
 *
 * <p>Threading: the replica's event loop.
 */
final class ShardLogs {
  /** Told when a log gained a join mark its subscribers have to deliver. */
  @FunctionalInterface
  interface MarkListener {
    void onMark(ColorLog log);
  }

  private final int nodeId;
  private Topology topology;
  private final Int2ObjectHashMap<Shard> hostedShards = new Int2ObjectHashMap<>();
  private final Long2ObjectHashMap<ColorLog> logs = new Long2ObjectHashMap<>();
  private final List<ColorLog> logList = new ArrayList<>();

  /** Incarnation of each welcomed sequencer link (0: down or not welcomed yet). */
  private final Int2IntHashMap linkIncarnations = new Int2IntHashMap(0);

  /**
   * Shards whose role moved, until their new leader's next WELCOME (docs/architecture.md#fencing):
   * what that node sends before it may belong to an earlier tenure of the role there.
   */
  private final IntHashSet awaitingWelcome = new IntHashSet();

  private MarkListener marks = log -> {};

  ShardLogs(int nodeId, Topology topology) {
    this.nodeId = nodeId;
    this.topology = topology;
    for (Shard shard : topology.shardsOnReplica(nodeId)) {
      hostedShards.put(shard.id(), shard);
    }
  }

  void onMarks(MarkListener listener) {
    this.marks = listener;
  }

  int nodeId() {
    return nodeId;
  }

  Topology topology() {
    return topology;
  }

  /**
   * Applies a newer topology; see {@link ReplicationEngine#updateTopology}.
   *
   * @return the ids of the newly hosted shards, sorted
   */
  int[] updateTopology(Topology next) {
    if (next.version() <= topology.version()) {
      return new int[0];
    }
    topology = next;
    List<Integer> added = new ArrayList<>();
    for (Shard shard : next.shardsOnReplica(nodeId)) {
      if (!hostedShards.containsKey(shard.id())) {
        hostedShards.put(shard.id(), shard);
        added.add(shard.id());
      }
    }
    return added.stream().mapToInt(Integer::intValue).sorted().toArray();
  }

  int[] hostedShardIds() {
    return hostedShards.keySet().stream().mapToInt(Integer::intValue).sorted().toArray();
  }

  /** The hosted shard, or null. */
  Shard shard(int shardId) {
    return hostedShards.get(shardId);
  }

  boolean hosts(int shardId) {
    return hostedShards.containsKey(shardId);
  }

  /** Every hosted shard; one iteration at a time (the iterator is reused). */
  Collection<Shard> hosted() {
    return hostedShards.values();
  }

  boolean knowsColor(int colorId) {
    return topology.color(colorId).isPresent();
  }

  /** The sequencer node the shard is attached to (the role of the shard's color). */
  int sequencerOf(int shardId) {
    Shard shard = hostedShards.get(shardId);
    return topology.color(shard.colorId()).orElseThrow().sequencerId();
  }

  /** The role epoch of the shard's color (0 without sequencer failover). */
  int roleEpochOf(int shardId) {
    Shard shard = hostedShards.get(shardId);
    return topology.color(shard.colorId()).orElseThrow().roleEpoch();
  }

  /** The log of a color on a shard, created empty on first use. */
  ColorLog log(int shardId, int colorId) {
    long key = ((long) shardId << 32) | (colorId & 0xFFFF_FFFFL);
    ColorLog log = logs.get(key);
    if (log == null) {
      log = new ColorLog(shardId, colorId);
      logs.put(key, log);
      logList.add(log);
    }
    return log;
  }

  int logCount() {
    return logList.size();
  }

  /**
   * Drops the index pages that hold only entries at or below the color's trim point: they are never
   * served again, and the index keeps what the log retains (docs/architecture.md#index). SNs there
   * whose record has not arrived are no longer awaited either (see {@link
   * ColorLog#stopAwaitingThrough}).
   */
  void discardTrimmed(int colorId, long trimPoint) {
    for (ColorLog log : logList) {
      if (log.colorId == colorId) {
        log.index.discardThrough(trimPoint);
        log.stopAwaitingThrough(trimPoint);
      }
    }
  }

  ColorLog logAt(int i) {
    return logList.get(i);
  }

  /** The largest SN of a color known assigned on one shard: committed here or below the bound. */
  long tail(int shardId, int colorId) {
    ColorLog log = log(shardId, colorId);
    return Math.max(log.index.lastSn(), log.committedThrough());
  }

  /**
   * A watermark from sequencer node {@code sequencerId}. It covers only the shards attached through
   * that node: the FIFO guarantee (every order response with a smaller SN came first) holds per
   * connection, so a watermark of {@code global} from one leaf says nothing about the order
   * responses another leaf still has to deliver for the shards it serves.
   */
  void onWatermark(int sequencerId, int colorId, long watermark) {
    for (Shard shard : hostedShards.values()) {
      if (topology.isInSubtree(shard.colorId(), colorId)
          && sequencerOf(shard.id()) == sequencerId
          && !awaitingWelcome.contains(shard.id())) {
        ColorLog log = log(shard.id(), colorId);
        log.onWatermark(watermark);
        log.orderingProcess(sequencerId, linkIncarnations.get(sequencerId));
      }
    }
  }

  /** The incarnations of the welcomed sequencer links, kept by the sync phase. */
  Int2IntHashMap linkIncarnations() {
    return linkIncarnations;
  }

  /**
   * A join mark from sequencer node {@code sequencerId} (docs/architecture.md#subscribe): the
   * subtree of the color gained shards, whose records of the color all have SNs at or above the
   * mark. Kept by every log of the color on the shards attached through that node (the connection
   * that carries the color's watermarks to them, so the mark precedes every watermark that reaches
   * it), and delivered by their subscriptions.
   */
  void onTopologyMark(int sequencerId, int colorId, long version, long markSn) {
    for (Shard shard : hostedShards.values()) {
      if (topology.isInSubtree(shard.colorId(), colorId)
          && sequencerOf(shard.id()) == sequencerId) {
        ColorLog log = log(shard.id(), colorId);
        if (log.addMark(version, markSn) && !log.subscribers.isEmpty()) {
          marks.onMark(log);
        }
      }
    }
  }

  /**
   * Whether the shard's role moved and its new leader has not welcomed this replica since: that
   * node's order responses and watermarks for it are dropped until then.
   */
  boolean awaitsWelcome(int shardId) {
    return awaitingWelcome.contains(shardId);
  }

  /** WELCOME from sequencer node {@code sequencerId}: it answered a HELLO sent after any move. */
  void onWelcome(int sequencerId) {
    awaitingWelcome.removeIf(
        shardId -> !hostedShards.containsKey(shardId) || sequencerOf(shardId) == sequencerId);
  }

  /**
   * The role of a shard's color moved: its logs act as after a lost link (see SyncPhase), and its
   * new leader's frames count only from that node's next WELCOME on. A node that led the role
   * before, lost it and took it back answers with a new role object, so its answers of the earlier
   * tenure still on the connection would give a token a second SN.
   */
  void onRoleMoved(int shardId) {
    awaitingWelcome.add(shardId);
    for (ColorLog log : logList) {
      if (log.shardId == shardId) {
        log.onLinkLost();
      }
    }
  }

  /** The link to a sequencer broke: SNs assigned meanwhile may never reach this replica. */
  void onLinkLost(int sequencerId) {
    for (ColorLog log : logList) {
      if (sequencerOf(log.shardId) == sequencerId) {
        log.onLinkLost();
      }
    }
  }

  /** For tests: {@code committedThrough} of a color on one of the shards. */
  long committedThrough(int shardId, int colorId) {
    return log(shardId, colorId).committedThrough();
  }
}
