package io.flexlog.replica.replication;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.protocol.ReadResponseDescriptor;
import io.flexlog.replica.index.SnIndex;
import io.flexlog.replica.storage.LogStorage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads by SN with the hold-or-decide rule of the watermarks (docs/architecture.md): a read is
 * answered FOUND when a hosted shard of the color's subtree holds the SN, ABSENT (a hole) once
 * every such shard's {@code committedThrough} covers it, TRIMMED at or below the trim point, and
 * RETRY when this replica may have missed the record (a blind range). Otherwise it is held until a
 * commit or watermark decides it, or until {@link ReplicaLimits#readHold()} passes on the runtime's
 * clock, which answers RETRY.
 *
 * <p>Threading: the replica's event loop.
 */
final class ReadPath {
  private final ShardLogs shards;
  private final LogStorage storage;
  private final ReplicaLimits limits;
  private final ReplicaRuntime runtime;
  private final ReplicaPublisher publisher;
  private final List<HeldRead> held = new ArrayList<>();

  private final Counter readsFound;
  private final Counter readsAbsent;
  private final Counter readsRetry;
  private final Counter readsTrimmed;
  private final ColorMeters colorMeters;

  ReadPath(
      ShardLogs shards,
      LogStorage storage,
      ReplicaLimits limits,
      ReplicaRuntime runtime,
      ReplicaPublisher publisher,
      ColorMeters colorMeters,
      MeterRegistry registry) {
    this.colorMeters = colorMeters;
    this.shards = shards;
    this.storage = storage;
    this.limits = limits;
    this.runtime = runtime;
    this.publisher = publisher;
    String node = Integer.toString(shards.nodeId());
    readsFound = reads(registry, node, "found");
    readsAbsent = reads(registry, node, "absent");
    readsRetry = reads(registry, node, "retry");
    readsTrimmed = reads(registry, node, "trimmed");
  }

  private static Counter reads(MeterRegistry registry, String node, String result) {
    return Counter.builder("flexlog.replica.reads")
        .tag("node", node)
        .tag("result", result)
        .description("READ answers by result (found, absent, retry, trimmed)")
        .register(registry);
  }

  /** READ: answered now if it can be decided, held otherwise. */
  void onRead(Connection c, long requestId, int colorId, long sn) {
    long arrivalNs = runtime.nanoTime();
    if (tryAnswer(c, requestId, colorId, sn, false)) {
      colorMeters.readLatency(runtime.nanoTime() - arrivalNs);
    } else {
      HeldRead read = new HeldRead(c, requestId, colorId, sn, arrivalNs);
      held.add(read);
      read.timeout = runtime.schedule(() -> expire(read), limits.readHold().toNanos());
    }
  }

  /** Answers the held reads that became decidable; at the end of a turn. */
  void answerHeld() {
    for (int i = held.size() - 1; i >= 0; i--) {
      HeldRead read = held.get(i);
      if (tryAnswer(read.connection, read.requestId, read.colorId, read.sn, false)) {
        held.remove(i);
        read.timeout.cancel();
        colorMeters.readLatency(runtime.nanoTime() - read.arrivalNs);
      }
    }
  }

  /** A client connection closed: its held reads are dropped. */
  void onConnectionClosed(Connection c) {
    for (int i = held.size() - 1; i >= 0; i--) {
      if (held.get(i).connection == c) {
        held.remove(i).timeout.cancel();
      }
    }
  }

  int heldCount() {
    return held.size();
  }

  private void expire(HeldRead read) {
    if (held.remove(read)) {
      tryAnswer(read.connection, read.requestId, read.colorId, read.sn, true);
      colorMeters.readLatency(runtime.nanoTime() - read.arrivalNs);
      read.connection.flush();
    }
  }

  /**
   * Answers a read if it can be decided now.
   *
   * @param last answer RETRY instead of returning false
   * @return true if an answer was written
   */
  private boolean tryAnswer(Connection c, long requestId, int colorId, long sn, boolean last) {
    if (!shards.knowsColor(colorId)) {
      publisher.error(c, requestId, ErrorCode.UNKNOWN_COLOR, "unknown color id " + colorId);
      return true;
    }
    long trimPoint = storage.trimPoint(colorId);
    if (trimPoint != Sn.NONE && sn <= trimPoint) {
      readsTrimmed.increment();
      publisher.readStatus(c, requestId, ReadResponseDescriptor.TRIMMED, colorId, sn, trimPoint);
      return true;
    }
    boolean hosted = false;
    boolean blind = false;
    boolean decided = true;
    long bound = Long.MAX_VALUE;
    for (Shard shard : shards.hosted()) {
      if (!shards.topology().isInSubtree(shard.colorId(), colorId)) {
        continue;
      }
      hosted = true;
      ColorLog log = shards.log(shard.id(), colorId);
      long address = log.index.address(sn);
      if (address != SnIndex.NOT_FOUND) {
        readsFound.increment();
        colorMeters.read(colorId);
        publisher.found(c, requestId, colorId, sn, address, log.committedThrough());
        return true;
      }
      blind |= log.isBlind(sn);
      decided &= sn <= log.committedThrough();
      bound = Math.min(bound, log.committedThrough());
    }
    if (!hosted) {
      publisher.error(
          c,
          requestId,
          ErrorCode.UNKNOWN_SHARD,
          "replica node " + shards.nodeId() + " hosts no shard of color id " + colorId);
      return true;
    }
    if (decided && !blind) {
      readsAbsent.increment();
      publisher.readStatus(c, requestId, ReadResponseDescriptor.ABSENT, colorId, sn, bound);
      return true;
    }
    if (blind || last) {
      readsRetry.increment();
      publisher.readStatus(c, requestId, ReadResponseDescriptor.RETRY, colorId, sn, bound);
      return true;
    }
    return false;
  }

  /** A read that could not be decided yet, waiting for commits or watermarks or its timeout. */
  private static final class HeldRead {
    final Connection connection;
    final long requestId;
    final int colorId;
    final long sn;
    final long arrivalNs;
    ReplicaRuntime.Timer timeout;

    HeldRead(Connection connection, long requestId, int colorId, long sn, long arrivalNs) {
      this.connection = connection;
      this.requestId = requestId;
      this.colorId = colorId;
      this.sn = sn;
      this.arrivalNs = arrivalNs;
    }
  }
}
