package io.flexlog.replica.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.AppendDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.OrderResponseDescriptor;
import io.flexlog.core.protocol.ReadDescriptor;
import io.flexlog.core.protocol.ReadResponseDescriptor;
import io.flexlog.core.protocol.SyncFetchDescriptor;
import io.flexlog.core.protocol.TopologyMarkDescriptor;
import io.flexlog.core.protocol.TrimDescriptor;
import io.flexlog.core.protocol.WatermarkDescriptor;
import io.flexlog.core.util.DurableFiles;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.replica.storage.SyncPointFile;
import io.flexlog.replica.storage.TrimmedTokenFile;
import io.flexlog.replica.storage.TrimmedTokenStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One replica process of shard 0 of the global color, for tests that drive several of them frame by
 * frame: its engine on an embedded loop of its own (time frozen, moved by {@link #advance}), over
 * its log and sync-point file; the frames it sends to its peers are kept in {@link #toPeers} until
 * a test delivers them. Its sequencer (node 0) is the test.
 */
final class PeeredReplica {
  static final int SEQUENCER = 0;
  static final int SHARD = 0;
  static final int GLOBAL = Color.GLOBAL_ID;

  final int nodeId;
  final Path data;
  EmbeddedChannel loop;
  LogStorage storage;
  SyncPointFile points;
  TrimmedTokenStore trimmedTokens;
  SimpleMeterRegistry registry;
  ReplicationEngine engine;
  final EmbeddedChannel client = new EmbeddedChannel();
  final EmbeddedChannel fromPeer = new EmbeddedChannel();
  final List<ByteBuf> toPeers = new ArrayList<>();
  private long nanos;

  /** Shard 0 of the global color on replica nodes 1 and 2; node 0 sequences it. */
  static final Topology TOPOLOGY =
      new Topology(
          1,
          List.of(
              new NodeAddress(SEQUENCER, NodeAddress.Kind.SEQUENCER, "127.0.0.1", 1),
              new NodeAddress(1, NodeAddress.Kind.REPLICA, "127.0.0.1", 2),
              new NodeAddress(2, NodeAddress.Kind.REPLICA, "127.0.0.1", 3)),
          List.of(new Color(GLOBAL, Color.GLOBAL, Color.NO_PARENT, SEQUENCER)),
          List.of(new Shard(SHARD, GLOBAL, List.of(1, 2))));

  /**
   * Replica node 1 or 2 of {@link #TOPOLOGY}, welcomed by sequencer incarnation 1 and past its
   * first watermark {@code watermark}: ready to order.
   */
  static PeeredReplica welcomed(Path dir, int nodeId, long watermark) {
    PeeredReplica replica = new PeeredReplica(dir, nodeId);
    replica.welcomedBy(1);
    replica.watermark(watermark);
    return replica;
  }

  /** Replica node 1 or 2 of {@link #TOPOLOGY}, its data under {@code dir}. */
  PeeredReplica(Path dir, int nodeId) {
    this.nodeId = nodeId;
    this.data = dir.resolve("replica-" + nodeId);
    start();
  }

  void start() {
    start(new TrimmedTokenFile(data, nodeId, mode()));
  }

  /** Starts again (after {@link #crash}) keeping the tokens of trimmed records in {@code store}. */
  void start(TrimmedTokenStore store) {
    loop = new EmbeddedChannel();
    loop.freezeTime();
    storage = StorageEngines.open(StorageEngines.MAPPED, data, 8 << 20, 1 << 20, mode());
    points = new SyncPointFile(data, nodeId, mode(), () -> "boot", DurableFiles.REAL);
    trimmedTokens = store;
    registry = new SimpleMeterRegistry();
    SequencerGateway sequencer = NO_SEQUENCER;
    engine =
        new ReplicationEngine(
            nodeId,
            TOPOLOGY,
            storage,
            new ReplicaLimits(1 << 20, Duration.ofSeconds(1), 1000),
            sequencer,
            new EventExecutorRuntime(loop.eventLoop(), () -> nanos),
            registry);
    engine.attachPeers(
        new PeerGateway() {
          @Override
          public void send(int peer, ByteBuf frame) {
            toPeers.add(frame);
          }

          @Override
          public void flush() {}
        });
    engine.attachSyncPoints(points);
    engine.attachTrimmedTokens(trimmedTokens);
    engine.recover();
    engine.startHeartbeats();
    loop.runPendingTasks();
  }

  DurabilityMode mode() {
    return DurabilityMode.PROCESS;
  }

  /** The process dies; what the sync-point writer was handed before is on disk. */
  void crash() {
    if (storage == null) {
      return;
    }
    loop.finishAndReleaseAll();
    points.close();
    trimmedTokens.close();
    storage.close();
    storage = null;
    toPeers.forEach(ByteBuf::release);
    toPeers.clear();
    client.releaseOutbound();
    fromPeer.releaseOutbound();
  }

  void run() {
    loop.runPendingTasks();
  }

  /** Moves this replica's clock and its loop's time, and runs the timers due. */
  void advance(long millis) {
    nanos += TimeUnit.MILLISECONDS.toNanos(millis);
    loop.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
    loop.runScheduledPendingTasks();
    run();
  }

  /** Appends and commits records {@code first..last} of session {@code session} at base + i. */
  void commit(long session, int first, int last, long base, byte[] payload) {
    for (int from = first; from <= last; from += 500) {
      int to = Math.min(last, from + 499);
      for (int i = from; i <= to; i++) {
        deliverAppend(session, i, payload);
      }
      run();
      ByteBuf response =
          OrderResponseDescriptor.encodeHeader(
              ByteBufAllocator.DEFAULT, GLOBAL, SHARD, to - from + 1);
      for (int i = from; i <= to; i++) {
        OrderResponseDescriptor.writeEntry(response, session, i, base + i);
      }
      try {
        engine.onOrderResponse(SEQUENCER, response);
      } finally {
        response.release();
      }
      run();
      client.releaseOutbound();
    }
  }

  /** APPEND of token (session, sequence); the loop does not run. */
  void deliverAppend(long session, int sequence, byte[] payload) {
    append(engine, client, session, sequence, payload);
  }

  /**
   * Hands {@code engine} an ORDER_RESPONSE from {@code sequencerId} giving token (session,
   * sequence) of shard {@link #SHARD} SN {@code sn} in global; the loop does not run.
   */
  static void orderResponse(
      ReplicationEngine engine, int sequencerId, long session, long sequence, long sn) {
    ByteBuf response =
        OrderResponseDescriptor.encodeHeader(ByteBufAllocator.DEFAULT, GLOBAL, SHARD, 1);
    OrderResponseDescriptor.writeEntry(response, session, sequence, sn);
    try {
      engine.onOrderResponse(sequencerId, response);
    } finally {
      response.release();
    }
  }

  /** A sequencer link that sends nothing: the tests deliver the ORDER_RESPONSEs they want. */
  static final SequencerGateway NO_SEQUENCER =
      new SequencerGateway() {
        @Override
        public void send(OrderRequestBatch batch, int replicaNodeId) {}

        @Override
        public void flush() {}
      };

  /**
   * Hands {@code engine} an APPEND of token (session, sequence) to shard {@link #SHARD} of global
   * from {@code client}; the loop does not run.
   */
  static void append(
      ReplicationEngine engine,
      EmbeddedChannel client,
      long session,
      long sequence,
      byte[] payload) {
    ByteBuf frame =
        Unpooled.wrappedBuffer(
            AppendDescriptor.encodeHeader(
                ByteBufAllocator.DEFAULT,
                sequence,
                session,
                sequence,
                GLOBAL,
                SHARD,
                payload.length),
            Unpooled.wrappedBuffer(payload));
    try {
      engine.onAppend(EmbeddedConnections.of(client), frame);
    } finally {
      frame.release();
    }
  }

  /** The ORDER_RESPONSE for token (session, sequence) at {@code sn}, whether or not it came. */
  void order(long session, int sequence, long sn) {
    orderResponse(engine, SEQUENCER, session, sequence, sn);
    run();
  }

  void watermark(long sn) {
    ByteBuf frame = WatermarkDescriptor.encode(ByteBufAllocator.DEFAULT, GLOBAL, sn);
    try {
      engine.onWatermark(SEQUENCER, frame);
    } finally {
      frame.release();
    }
    run();
  }

  void welcomedBy(int incarnation) {
    engine.onSequencerLinkUp(SEQUENCER, incarnation);
    run();
  }

  void lostSequencer() {
    engine.onSequencerLinkLost(SEQUENCER);
    run();
  }

  void mark(long version, long markSn) {
    ByteBuf frame =
        TopologyMarkDescriptor.encode(ByteBufAllocator.DEFAULT, 0, GLOBAL, GLOBAL, version, markSn);
    try {
      engine.onTopologyMark(SEQUENCER, frame);
    } finally {
      frame.release();
    }
    run();
  }

  /** TRIM of the global color at {@code sn} with {@code requestId}: the answer's frame type. */
  byte trim(long requestId, long sn) {
    ByteBuf frame = TrimDescriptor.encode(ByteBufAllocator.DEFAULT, requestId, GLOBAL, sn);
    try {
      engine.onTrim(EmbeddedConnections.of(client), frame);
    } finally {
      frame.release();
    }
    run();
    return frames(client).stream()
        .map(FrameDescriptor::type)
        .filter(type -> type == MessageType.TRIM_RESPONSE || type == MessageType.ERROR)
        .findFirst()
        .orElse((byte) -1);
  }

  long trimPoint() {
    return storage.trimPoint(GLOBAL);
  }

  /** The afterSn of each SYNC_FETCH this replica sent so far (still undelivered). */
  List<Long> fetchesFrom() {
    return toPeers.stream()
        .filter(f -> FrameDescriptor.type(f) == MessageType.SYNC_FETCH)
        .map(SyncFetchDescriptor::afterSn)
        .toList();
  }

  /** Delivers this replica's sync requests to {@code peer} and its answers back, to the end. */
  void syncWith(PeeredReplica peer) {
    while (!toPeers.isEmpty()) {
      List<ByteBuf> sent = new ArrayList<>(toPeers);
      toPeers.clear();
      for (ByteBuf frame : sent) {
        assertThat(FrameDescriptor.type(frame)).isEqualTo(MessageType.SYNC_FETCH);
        try {
          peer.engine.onSyncFetch(EmbeddedConnections.of(peer.fromPeer), frame);
        } finally {
          frame.release();
        }
      }
      peer.run();
      for (ByteBuf answer : frames(peer.fromPeer)) {
        assertThat(FrameDescriptor.type(answer)).isEqualTo(MessageType.SYNC_ENTRIES);
        engine.onSyncEntries(answer);
      }
      run();
    }
  }

  double counter(String name) {
    return registry.get(name).functionCounter().count();
  }

  /** A READ of {@code sn}: the answer's status, or -1 when the replica holds the read. */
  byte read(long sn) {
    ByteBuf frame = ReadDescriptor.encode(ByteBufAllocator.DEFAULT, 1, GLOBAL, sn);
    try {
      engine.onRead(EmbeddedConnections.of(client), frame);
    } finally {
      frame.release();
    }
    run();
    return frames(client).stream()
        .filter(f -> FrameDescriptor.type(f) == MessageType.READ_RESPONSE)
        .map(ReadResponseDescriptor::status)
        .findFirst()
        .orElse((byte) -1);
  }

  void close() {
    crash();
    client.finishAndReleaseAll();
    fromPeer.finishAndReleaseAll();
  }

  /** Every complete frame written to {@code channel} so far, reassembled (released afterwards). */
  static List<ByteBuf> frames(EmbeddedChannel channel) {
    channel.flushOutbound();
    ByteBuf all = Unpooled.buffer();
    for (Object part = channel.readOutbound(); part != null; part = channel.readOutbound()) {
      ByteBuf buf = (ByteBuf) part;
      all.writeBytes(buf, buf.readerIndex(), buf.readableBytes());
      buf.release();
    }
    List<ByteBuf> frames = new ArrayList<>();
    while (all.isReadable()) {
      frames.add(all.readSlice(all.getInt(all.readerIndex()) + 4));
    }
    return frames;
  }
}
