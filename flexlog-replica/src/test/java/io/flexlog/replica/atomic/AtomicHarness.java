package io.flexlog.replica.atomic;

import static io.flexlog.replica.replication.StagingHook.STAGING_COLOR_ID;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.AppendAckDescriptor;
import io.flexlog.core.protocol.AppendDescriptor;
import io.flexlog.core.protocol.CommitGroupDescriptor;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.GroupResultDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.StageAckDescriptor;
import io.flexlog.core.protocol.StageDescriptor;
import io.flexlog.replica.replication.RecordingConnection;
import io.flexlog.replica.replication.ReplicaLimits;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.StorageEngines;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The atomic component of replica node 1 without an engine, sockets or event loop: the log is a
 * mapped file, clients are {@link RecordingConnection}s, forwarded APPENDs are captured, time is a
 * {@link VirtualScheduler}, and the test plays the engine's end of turn ({@link #endTurn()}) and
 * the target replicas ({@link #ack}, {@link #refuse}).
 *
 * <p>Topology: broker shard 0 of {@code global} and target shards 1 ({@code left}) and 2 ({@code
 * right}) on nodes 1 and 2; shard 3 of {@code left} on node 2 only.
 */
final class AtomicHarness implements AutoCloseable {
  static final int NODE = 1;
  static final int BROKER = 0;
  static final int LEFT = 1;
  static final int RIGHT = 2;
  static final int FOREIGN_SHARD = 3;
  static final long GROUP_HIGH = 0x1111L;
  static final long SESSION = 77;
  static final ReplicaLimits LIMITS = new ReplicaLimits(1 << 10, Duration.ofSeconds(1), 1000);

  /** A forwarded APPEND as a target replica got it, with the virtual time it was sent at. */
  record Forwarded(
      int nodeId,
      long sequence,
      int colorId,
      int shardId,
      long requestId,
      String payload,
      long atNs) {}

  /** A frame a client got, decoded. */
  record Reply(
      byte type, long requestId, ErrorCode code, String message, int memberIndex, List<Long> sns) {}

  final VirtualScheduler scheduler = new VirtualScheduler();
  final RecordingConnection client = new RecordingConnection();
  final List<Forwarded> forwarded = new ArrayList<>();
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  Topology topology = topology(true);
  LogStorage storage;
  AtomicAppends atomic;
  boolean endOfTurnRequested;

  private final Path dir;
  private final AtomicConfig config;

  AtomicHarness(Path dir, AtomicConfig config) {
    this.dir = dir;
    this.config = config;
    open();
  }

  static Topology topology(boolean withRight) {
    List<Color> colors = new ArrayList<>();
    colors.add(new Color(Color.GLOBAL_ID, Color.GLOBAL, Color.NO_PARENT, 0));
    colors.add(new Color(LEFT, "left", Color.GLOBAL_ID, 0));
    List<Shard> shards = new ArrayList<>();
    shards.add(new Shard(BROKER, Color.GLOBAL_ID, List.of(1, 2)));
    shards.add(new Shard(LEFT, LEFT, List.of(1, 2)));
    shards.add(new Shard(FOREIGN_SHARD, LEFT, List.of(2)));
    if (withRight) {
      colors.add(new Color(RIGHT, "right", Color.GLOBAL_ID, 0));
      shards.add(new Shard(RIGHT, RIGHT, List.of(1, 2)));
    }
    return new Topology(
        withRight ? 1 : 2,
        List.of(
            new NodeAddress(0, NodeAddress.Kind.SEQUENCER, "127.0.0.1", 1),
            new NodeAddress(1, NodeAddress.Kind.REPLICA, "127.0.0.1", 2),
            new NodeAddress(2, NodeAddress.Kind.REPLICA, "127.0.0.1", 3)),
        colors,
        shards);
  }

  private void open() {
    storage =
        StorageEngines.open(StorageEngines.MAPPED, dir, 4 << 20, 1 << 20, DurabilityMode.PROCESS);
    ForwardTransport capture =
        new ForwardTransport() {
          @Override
          public void send(int nodeId, ByteBuf frame) {
            try {
              forwarded.add(
                  new Forwarded(
                      nodeId,
                      AppendDescriptor.tokenSequence(frame),
                      AppendDescriptor.colorId(frame),
                      AppendDescriptor.shardId(frame),
                      FrameDescriptor.requestId(frame),
                      AppendDescriptor.payload(frame).toString(StandardCharsets.UTF_8),
                      scheduler.nanoTime()));
            } finally {
              frame.release();
            }
          }

          @Override
          public void flush() {}
        };
    atomic =
        new AtomicAppends(
            NODE,
            () -> topology,
            () -> endOfTurnRequested = true,
            storage,
            LIMITS,
            scheduler,
            capture,
            config,
            registry);
    storage.recover(
        (address, shardId, colorId, session, sequence, sn, length) -> {
          if (colorId == STAGING_COLOR_ID) {
            atomic.onRecoveredEntry(address, shardId, session, sequence, sn);
          }
        });
    atomic.onRecovered();
    endTurn();
  }

  /** A crash and restart of the node: the log is reopened, nothing in memory survives. */
  void restart() {
    atomic.close();
    storage.close();
    endOfTurnRequested = false;
    forwarded.clear();
    open();
  }

  /**
   * What the engine does at the end of a turn that was asked for: flush the log, then let what
   * waited for it take effect; again as long as that asks for another turn.
   */
  void endTurn() {
    while (endOfTurnRequested) {
      endOfTurnRequested = false;
      storage.flush();
      atomic.onFlushed();
    }
  }

  void stage(long groupLow, int index, int count, int color, int shard, long sequence) {
    stage(client, groupLow, index, count, BROKER, color, shard, sequence, 100 + index);
  }

  void stage(
      RecordingConnection from,
      long groupLow,
      int index,
      int count,
      int brokerShard,
      int color,
      int shard,
      long sequence,
      long requestId) {
    byte[] bytes = ("m" + sequence).getBytes(StandardCharsets.UTF_8);
    ByteBuf header =
        StageDescriptor.encodeHeader(
            ByteBufAllocator.DEFAULT,
            requestId,
            GROUP_HIGH,
            groupLow,
            index,
            count,
            brokerShard,
            color,
            shard,
            SESSION,
            sequence,
            bytes.length);
    deliver(from, Unpooled.wrappedBuffer(header, Unpooled.wrappedBuffer(bytes)));
  }

  /** Stages a two-member group: token 77/first to left, 77/first+1 to right. */
  void stagePair(long groupLow, long first) {
    stage(groupLow, 0, 2, LEFT, LEFT, first);
    stage(groupLow, 1, 2, RIGHT, RIGHT, first + 1);
  }

  void commit(long groupLow, long requestId, int count) {
    commit(client, groupLow, requestId, count);
  }

  void commit(RecordingConnection from, long groupLow, long requestId, int count) {
    deliver(
        from,
        CommitGroupDescriptor.encode(
            ByteBufAllocator.DEFAULT, requestId, GROUP_HIGH, groupLow, BROKER, count));
  }

  private void deliver(RecordingConnection from, ByteBuf frame) {
    try {
      atomic.onClientFrame(from, frame);
    } finally {
      frame.release();
    }
  }

  /**
   * Target replica {@code replica} acknowledges the member with token 77/sequence at {@code sn}.
   */
  void ack(int replica, long sequence, long sn, int color) {
    peerFrame(
        AppendAckDescriptor.encode(
            ByteBufAllocator.DEFAULT, 0, SESSION, sequence, sn, color, replica));
  }

  /** A target replica refuses the latest forward of the member with token 77/sequence. */
  void refuse(long sequence, ErrorCode code) {
    long requestId = -1;
    for (Forwarded sent : forwarded) {
      if (sent.sequence() == sequence) {
        requestId = sent.requestId();
      }
    }
    peerFrame(ErrorDescriptor.encode(ByteBufAllocator.DEFAULT, requestId, code, "refused"));
  }

  private void peerFrame(ByteBuf frame) {
    try {
      atomic.onPeerFrame(frame);
    } finally {
      frame.release();
    }
  }

  /** The flushed frames {@code connection} got since the last call, decoded and released. */
  static List<Reply> replies(RecordingConnection connection) {
    List<Reply> replies = new ArrayList<>();
    for (ByteBuf frame : connection.sent()) {
      try {
        replies.add(decode(frame));
      } finally {
        frame.release();
      }
    }
    return replies;
  }

  List<Reply> replies() {
    return replies(client);
  }

  private static Reply decode(ByteBuf frame) {
    byte type = FrameDescriptor.type(frame);
    long requestId = FrameDescriptor.requestId(frame);
    return switch (type) {
      case MessageType.STAGE_ACK ->
          new Reply(type, requestId, null, null, StageAckDescriptor.memberIndex(frame), List.of());
      case MessageType.GROUP_RESULT -> {
        List<Long> sns = new ArrayList<>();
        for (int i = 0; i < GroupResultDescriptor.count(frame); i++) {
          sns.add(GroupResultDescriptor.sn(frame, i));
        }
        yield new Reply(type, requestId, null, null, -1, sns);
      }
      case MessageType.ERROR ->
          new Reply(
              type,
              requestId,
              ErrorDescriptor.code(frame),
              ErrorDescriptor.message(frame),
              -1,
              List.of());
      default -> throw new AssertionError("unexpected frame type " + type);
    };
  }

  @Override
  public void close() {
    atomic.close();
    storage.close();
    client.releaseAll();
  }
}
