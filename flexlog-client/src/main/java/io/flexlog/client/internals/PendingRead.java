package io.flexlog.client.internals;

import io.flexlog.client.LogRecord;
import io.flexlog.core.model.Shard;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One read in flight: a sub-request per shard of the color's subtree, each with its own request id
 * ({@code firstRequestId + shard index}) and the replica it currently asks. The color and shards
 * are resolved on the loop, and again if a node reports that the topology changed.
 */
final class PendingRead {
  final String colorName;
  final long sn;
  final CompletableFuture<Optional<LogRecord>> future;
  final long deadlineNs;
  long firstRequestId;
  int colorId = -1;
  List<Shard> shards = List.of();
  int[] replicaCursor = new int[0];
  boolean[] absent = new boolean[0];
  int retries;

  /** The topology was fetched again for this read already. */
  boolean refreshed;

  boolean tailAsked;

  PendingRead(
      String colorName, long sn, CompletableFuture<Optional<LogRecord>> future, long deadlineNs) {
    this.colorName = colorName;
    this.sn = sn;
    this.future = future;
    this.deadlineNs = deadlineNs;
  }

  /** Targets the read at {@code shards}, with request ids from {@code firstRequestId} on. */
  void target(int colorId, List<Shard> shards, long firstRequestId) {
    this.colorId = colorId;
    this.shards = shards;
    this.firstRequestId = firstRequestId;
    this.replicaCursor = new int[shards.size()];
    this.absent = new boolean[shards.size()];
  }

  boolean allAbsent() {
    for (boolean a : absent) {
      if (!a) {
        return false;
      }
    }
    return true;
  }
}
