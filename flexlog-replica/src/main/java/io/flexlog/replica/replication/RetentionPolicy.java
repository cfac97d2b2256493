package io.flexlog.replica.replication;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.Retention;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.replica.storage.LogStorage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.IntArrayList;

/**
 * Retention (docs/architecture.md#retention): trims the colors that have a {@code retention.ms} or
 * {@code retention.bytes} through the path of an explicit trim. Socket-free, on the replica's
 * runtime and clock.
 *
 * <p>One replica decides for each color, so that every replica trims at the same SN: the first
 * replica (in placement order) of the color's <em>reference shard</em>, the shard of the color's
 * subtree with the smallest id. Every {@link #TICK_NANOS} it takes a sample of that shard's log of
 * the color ({@link RetentionSamples}: the time, the SN through which everything is decided here,
 * {@code committedThrough}, and the payload bytes committed up to it) and trims at the newest
 * sample older than {@code retention.ms} and at the oldest sample after which at most {@code
 * retention.bytes} remain, whichever is larger: here through {@link Trims#applyRetention}, and on
 * every other replica of every shard of the subtree with a TRIM frame, re-sent every {@link
 * #RESEND_TICKS} ticks (a replica that has not yet learnt an SN refuses it as beyond its tail and
 * takes it on a later try; answers are not awaited). The trim never passes {@code committedThrough}
 * of the deciding replica, so it removes only records that replica has committed.
 *
 * <p>Granularity: a record is trimmed between {@code retention.ms} and {@code retention.ms} plus
 * one sample interval ({@code max(tick, retention.ms / 128)}) after it was decided on the deciding
 * replica; samples restart with the process, so records recovered after a restart count as decided
 * at the restart. For bytes, samples are also taken every {@code retention.bytes / 64} bytes, and a
 * trim leaves between {@code retention.bytes} minus one sample's bytes and {@code retention.bytes}.
 *
 * <p>Threading: the replica's event loop.
 */
final class RetentionPolicy {
  static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
  static final int RESEND_TICKS = 8;

  /**
   * Request ids of the TRIM frames sent to peers, in [2^59, 2^60): below the token sync's range and
   * above the ids of forwarded atomic members, so that their answers are ignored here; a receiver
   * recognizes a retention trim by them (clients use other ranges).
   */
  static final long REQUEST_ID_BASE = 1L << 59;

  static final long REQUEST_ID_END = 1L << 60;

  private final ShardLogs shards;
  private final LogStorage storage;
  private final Trims trims;
  private final ReplicaRuntime runtime;
  private final ReplicaPublisher publisher;
  private final Counter retentionTrims;
  private final Int2ObjectHashMap<Decided> decided = new Int2ObjectHashMap<>();
  private PeerGateway peers;
  private long planVersion = -1;
  private long nextRequestId = REQUEST_ID_BASE;
  private long ticks;
  private boolean started;
  private ReplicaRuntime.Timer timer;

  /** A color this replica decides for. */
  private static final class Decided {
    final int colorId;
    final int shardId;
    final RetentionSamples samples = new RetentionSamples();
    Retention retention;
    int[] peerNodes;
    long countedThrough;
    long countedBytes;

    Decided(int colorId, int shardId) {
      this.colorId = colorId;
      this.shardId = shardId;
    }
  }

  RetentionPolicy(
      ShardLogs shards,
      LogStorage storage,
      Trims trims,
      ReplicaRuntime runtime,
      ReplicaPublisher publisher,
      MeterRegistry registry) {
    this.shards = shards;
    this.storage = storage;
    this.trims = trims;
    this.runtime = runtime;
    this.publisher = publisher;
    this.retentionTrims =
        Counter.builder("flexlog.replica.retention.trims")
            .tag("node", Integer.toString(shards.nodeId()))
            .description("trim points moved by retention on the colors this replica decides for")
            .register(registry);
  }

  /** True for the request id of a TRIM that a deciding replica sent for retention. */
  static boolean isRetentionTrim(long requestId) {
    return requestId >= REQUEST_ID_BASE && requestId < REQUEST_ID_END;
  }

  void peers(PeerGateway peers) {
    this.peers = peers;
  }

  /** Starts the timer if a color needs it; {@link #stop} ends it. */
  void start() {
    started = true;
    onTopology();
  }

  void stop() {
    started = false;
    if (timer != null) {
      timer.cancel();
      timer = null;
    }
  }

  /** A newer topology was applied: a retention or the shards may have changed. */
  void onTopology() {
    replan();
    if (started && timer == null && !decided.isEmpty()) {
      timer = runtime.schedule(this::tick, TICK_NANOS);
    }
  }

  private void tick() {
    timer = null;
    if (!started) {
      return;
    }
    replan();
    ticks++;
    boolean resend = ticks % RESEND_TICKS == 0;
    for (Decided d : decided.values()) {
      apply(d, resend);
    }
    if (peers != null) {
      peers.flush();
    }
    if (!decided.isEmpty()) {
      timer = runtime.schedule(this::tick, TICK_NANOS);
    }
  }

  /** One color: sample, decide, trim. */
  private void apply(Decided d, boolean resend) {
    long trimPoint = storage.trimPoint(d.colorId);
    d.samples.dropThrough(trimPoint);
    ColorLog log = shards.log(d.shardId, d.colorId);
    long through = log.committedThrough();
    count(d, log, Math.max(d.countedThrough, trimPoint), through);
    long now = runtime.nanoTime();
    Retention r = d.retention;
    RetentionSamples samples = d.samples;
    if (through > samples.lastSn()) {
      long interval =
          r.ms() == Retention.KEEP
              ? Long.MAX_VALUE
              : Math.max(TICK_NANOS, TimeUnit.MILLISECONDS.toNanos(r.ms()) / 128);
      long bytesStep = r.bytes() == Retention.KEEP ? Long.MAX_VALUE : Math.max(1, r.bytes() / 64);
      if (samples.size() == 0
          || now - samples.lastNanos() >= interval
          || d.countedBytes - samples.lastBytes() >= bytesStep) {
        samples.add(now, through, d.countedBytes);
      }
    }
    long cut = trimPoint;
    if (r.ms() != Retention.KEEP) {
      cut = Math.max(cut, samples.snDecidedBy(now - TimeUnit.MILLISECONDS.toNanos(r.ms())));
    }
    if (r.bytes() != Retention.KEEP) {
      cut = Math.max(cut, samples.snKeepingAtMost(d.countedBytes, r.bytes()));
    }
    cut = Math.min(cut, through);
    if (cut > trimPoint) {
      if (!trims.applyRetention(d.colorId, cut)) {
        return;
      }
      retentionTrims.increment();
      samples.dropThrough(cut);
      sendToPeers(d, cut);
    } else if (resend && trimPoint > 0) {
      sendToPeers(d, trimPoint);
    }
  }

  // Adds the payload bytes of the committed records in (from, through]; never reads trimmed ones.
  private void count(Decided d, ColorLog log, long from, long through) {
    if (through <= from) {
      return;
    }
    int end = log.index.ceilingPosition(through + 1);
    for (int i = log.index.ceilingPosition(from + 1); i < end; i++) {
      d.countedBytes += storage.payloadLength(log.index.addressAt(i));
    }
    d.countedThrough = through;
  }

  private void sendToPeers(Decided d, long sn) {
    if (peers == null) {
      return;
    }
    for (int node : d.peerNodes) {
      publisher.retentionTrim(peers, node, nextRequestId, d.colorId, sn);
      nextRequestId = nextRequestId + 1 < REQUEST_ID_END ? nextRequestId + 1 : REQUEST_ID_BASE;
    }
  }

  // Recomputes the colors decided here when the topology changed; keeps their samples.
  private void replan() {
    Topology topology = shards.topology();
    if (topology.version() == planVersion) {
      return;
    }
    planVersion = topology.version();
    List<Integer> stillDecided = new ArrayList<>();
    for (Color color : topology.colors()) {
      if (color.retention().keepsAll()) {
        continue;
      }
      List<Shard> subtree = topology.shardsInSubtree(color.id());
      Shard reference = null;
      for (Shard shard : subtree) {
        if (reference == null || shard.id() < reference.id()) {
          reference = shard;
        }
      }
      if (reference == null
          || reference.replicaNodeIds().get(0) != shards.nodeId()
          || !shards.hosts(reference.id())) {
        continue;
      }
      Decided d = decided.get(color.id());
      if (d == null || d.shardId != reference.id()) {
        d = new Decided(color.id(), reference.id());
        decided.put(color.id(), d);
      }
      d.retention = color.retention();
      d.peerNodes = peerNodes(subtree);
      stillDecided.add(color.id());
    }
    decided.keySet().removeIf(id -> !stillDecided.contains(id));
  }

  private int[] peerNodes(List<Shard> subtree) {
    IntArrayList nodes = new IntArrayList();
    for (Shard shard : subtree) {
      for (int node : shard.replicaNodeIds()) {
        if (node != shards.nodeId() && !nodes.containsInt(node)) {
          nodes.addInt(node);
        }
      }
    }
    return nodes.toIntArray();
  }
}
