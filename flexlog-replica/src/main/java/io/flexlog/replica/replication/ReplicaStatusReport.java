package io.flexlog.replica.replication;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.ReplicaDescription;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import io.flexlog.replica.storage.LogStorage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * REPLICA_STATUS (docs/protocol.md#replica_status-and-replica_status_response): this replica's
 * records and bytes per storage tier and, for every color it hosts a shard of (in the color's
 * subtree), the trim point, the tail it knows, its records above the trim point and the retention
 * its topology gives the color. Costs O(colors x hosted shards + color logs x log(records)), never
 * a scan of the records.
 *
 * <p>Threading: the replica's event loop.
 */
final class ReplicaStatusReport {
  private final ShardLogs shards;
  private final LogStorage storage;
  private final ReplicaPublisher publisher;

  ReplicaStatusReport(ShardLogs shards, LogStorage storage, ReplicaPublisher publisher) {
    this.shards = shards;
    this.storage = storage;
    this.publisher = publisher;
  }

  void answer(Connection c, long requestId) {
    publisher.replicaStatus(c, requestId, describe());
  }

  ReplicaDescription describe() {
    Topology topology = shards.topology();
    List<Color> colors = new ArrayList<>(topology.colors());
    colors.sort(Comparator.comparingInt(Color::id));
    List<ReplicaDescription.ColorState> states = new ArrayList<>();
    for (Color color : colors) {
      boolean hosted = false;
      long tail = Sn.NONE;
      for (Shard shard : shards.hosted()) {
        if (topology.isInSubtree(shard.colorId(), color.id())) {
          hosted = true;
          tail = Math.max(tail, shards.tail(shard.id(), color.id()));
        }
      }
      if (hosted) {
        long trimPoint = storage.trimPoint(color.id());
        states.add(
            new ReplicaDescription.ColorState(
                color.id(), trimPoint, tail, records(color.id(), trimPoint), color.retention()));
      }
    }
    return new ReplicaDescription(shards.nodeId(), storage.tierUsage(), states);
  }

  /** Records of the color above its trim point, over this replica's logs of it. */
  private long records(int colorId, long trimPoint) {
    long records = 0;
    for (int i = 0; i < shards.logCount(); i++) {
      ColorLog log = shards.logAt(i);
      if (log.colorId == colorId && shards.hosts(log.shardId)) {
        records += log.index.size() - log.index.ceilingPosition(trimPoint + 1);
      }
    }
    return records;
  }
}
