package io.flexlog.client.internals;

import io.flexlog.client.LogRecord;
import io.flexlog.core.model.Shard;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One read in flight: a sub-request per shard of the color's subtree, each with its own request id
 * ({@code firstRequestId + shard index}) and the replica it currently asks.
 */
final class PendingRead {
  final long firstRequestId;
  final String colorName;
  final int colorId;
  final long sn;
  final List<Shard> shards;
  final int[] replicaCursor;
  final boolean[] absent;
  final CompletableFuture<Optional<LogRecord>> future;
  final long deadlineNs;
  int retries;

  PendingRead(
      long firstRequestId,
      String colorName,
      int colorId,
      long sn,
      List<Shard> shards,
      CompletableFuture<Optional<LogRecord>> future,
      long deadlineNs) {
    this.firstRequestId = firstRequestId;
    this.colorName = colorName;
    this.colorId = colorId;
    this.sn = sn;
    this.shards = shards;
    this.replicaCursor = new int[shards.size()];
    this.absent = new boolean[shards.size()];
    this.future = future;
    this.deadlineNs = deadlineNs;
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
