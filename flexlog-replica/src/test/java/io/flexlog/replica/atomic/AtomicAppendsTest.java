package io.flexlog.replica.atomic;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.AppendAckDescriptor;
import io.flexlog.core.protocol.AppendDescriptor;
import io.flexlog.core.protocol.CommitGroupDescriptor;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.GroupResultDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.ReadDescriptor;
import io.flexlog.core.protocol.ReadResponseDescriptor;
import io.flexlog.core.protocol.StageAckDescriptor;
import io.flexlog.core.protocol.StageDescriptor;
import io.flexlog.core.protocol.WatermarkDescriptor;
import io.flexlog.replica.replication.EmbeddedConnections;
import io.flexlog.replica.replication.EventExecutorRuntime;
import io.flexlog.replica.replication.OrderRequestBatch;
import io.flexlog.replica.replication.RecordingConnection;
import io.flexlog.replica.replication.ReplicaLimits;
import io.flexlog.replica.replication.ReplicationEngine;
import io.flexlog.replica.replication.SequencerGateway;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.StorageEngines;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replica side of atomic appends, frame by frame on an embedded event loop with a frozen clock
 * (through {@link EventLoopScheduler}), the client a {@link RecordingConnection}: node 1 is a
 * replica of broker shard 0 ({@code global}) and of target shards 1 ({@code left}) and 2 ({@code
 * right}), each replicated on nodes 1 and 2. Forwarded APPENDs are captured instead of sent; the
 * test plays the target replicas by feeding APPEND_ACKs back.
 */
class AtomicAppendsTest {
  private static final int NODE = 1;
  private static final int BROKER = 0;
  private static final int LEFT = 1;
  private static final int RIGHT = 2;
  private static final long GROUP_HIGH = 0x1111L;
  private static final long GROUP_LOW = 0x2222L;
  private static final long SESSION = 77;
  private static final Duration RETRY = Duration.ofMillis(100);
  private static final Duration ABANDON = Duration.ofSeconds(60);
  private static final Duration RETENTION = Duration.ofMinutes(10);
  private static final int RETENTION_COUNT = 50;

  @TempDir Path dir;
  private final RecordingConnection client = new RecordingConnection();
  private final EmbeddedChannel reader = new EmbeddedChannel();
  private final EmbeddedChannel loop = new EmbeddedChannel();
  private final List<Sent> forwarded = new ArrayList<>();
  private final List<long[]> orderRequests = new ArrayList<>();
  private final java.util.Map<Long, Long> forwardRequestIds = new java.util.HashMap<>();
  private LogStorage storage;
  private ReplicationEngine engine;
  private AtomicAppends atomic;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  /** The fake clock of the atomic component; {@link #advance} moves it with the loop's. */
  private long now;

  record Sent(int nodeId, long session, long sequence, int colorId, int shardId, String payload) {}

  private static Topology topology() {
    return new Topology(
        1,
        List.of(
            new NodeAddress(0, NodeAddress.Kind.SEQUENCER, "127.0.0.1", 1),
            new NodeAddress(1, NodeAddress.Kind.REPLICA, "127.0.0.1", 2),
            new NodeAddress(2, NodeAddress.Kind.REPLICA, "127.0.0.1", 3)),
        List.of(
            new Color(Color.GLOBAL_ID, Color.GLOBAL, Color.NO_PARENT, 0),
            new Color(LEFT, "left", Color.GLOBAL_ID, 0),
            new Color(RIGHT, "right", Color.GLOBAL_ID, 0)),
        List.of(
            new Shard(BROKER, Color.GLOBAL_ID, List.of(1, 2)),
            new Shard(LEFT, LEFT, List.of(1, 2)),
            new Shard(RIGHT, RIGHT, List.of(1, 2))));
  }

  @BeforeEach
  void open() {
    loop.freezeTime();
    openNode();
  }

  private void openNode() {
    storage =
        StorageEngines.open(StorageEngines.MAPPED, dir, 4 << 20, 1 << 20, DurabilityMode.PROCESS);
    SequencerGateway gateway =
        new SequencerGateway() {
          @Override
          public void send(OrderRequestBatch batch, int replicaNodeId) {
            for (int i = 0; i < batch.count(); i++) {
              orderRequests.add(new long[] {batch.session(i), batch.sequence(i)});
            }
          }

          @Override
          public void flush() {}
        };
    engine =
        new ReplicationEngine(
            NODE,
            topology(),
            storage,
            new ReplicaLimits(1 << 10, Duration.ofSeconds(1), 1000),
            gateway,
            loop.eventLoop(),
            new SimpleMeterRegistry());
    ForwardTransport capture =
        new ForwardTransport() {
          @Override
          public void send(int nodeId, ByteBuf frame) {
            try {
              forwardRequestIds.put(
                  AppendDescriptor.tokenSequence(frame), FrameDescriptor.requestId(frame));
              forwarded.add(
                  new Sent(
                      nodeId,
                      AppendDescriptor.tokenSession(frame),
                      AppendDescriptor.tokenSequence(frame),
                      AppendDescriptor.colorId(frame),
                      AppendDescriptor.shardId(frame),
                      AppendDescriptor.payload(frame).toString(StandardCharsets.UTF_8)));
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
            engine,
            storage,
            new ReplicaLimits(1 << 10, Duration.ofSeconds(1), 1000),
            new EventExecutorRuntime(loop.eventLoop(), () -> now),
            capture,
            new AtomicConfig(RETENTION, RETENTION_COUNT, ABANDON, RETRY, RETRY.multipliedBy(8)),
            registry);
    engine.attachStaging(atomic);
    engine.recover();
    loop.runPendingTasks();
  }

  /** A crash and restart of node 1: the log is reopened, nothing in memory survives. */
  private void restart() {
    atomic.close();
    storage.close();
    forwarded.clear();
    drain();
    openNode();
  }

  @AfterEach
  void close() {
    atomic.close();
    loop.finishAndReleaseAll();
    client.releaseAll();
    reader.finishAndReleaseAll();
    storage.close();
  }

  // ------------------------------------------------------------------ helpers

  private void stage(int index, int count, int color, int shard, long sequence, String payload) {
    stage(GROUP_LOW, index, count, color, shard, sequence, payload);
  }

  private void stage(
      long groupLow, int index, int count, int color, int shard, long sequence, String payload) {
    byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
    ByteBuf header =
        StageDescriptor.encodeHeader(
            ByteBufAllocator.DEFAULT,
            100 + index,
            GROUP_HIGH,
            groupLow,
            index,
            count,
            BROKER,
            color,
            shard,
            SESSION,
            sequence,
            bytes.length);
    deliver(Unpooled.wrappedBuffer(header, Unpooled.wrappedBuffer(bytes)));
  }

  /** Stages the two-member group: "l" to left (token 77/1), "r" to right (token 77/2). */
  private void stageGroup() {
    stage(0, 2, LEFT, LEFT, 1, "l");
    stage(1, 2, RIGHT, RIGHT, 2, "r");
  }

  private void commitGroup(long requestId, int count) {
    commitGroup(GROUP_LOW, requestId, count);
  }

  private void commitGroup(long groupLow, long requestId, int count) {
    deliver(
        CommitGroupDescriptor.encode(
            ByteBufAllocator.DEFAULT, requestId, GROUP_HIGH, groupLow, BROKER, count));
  }

  /** Stages a two-member group (tokens 77/first and 77/first+1) without committing it. */
  private void stagePair(long groupLow, long first) {
    stage(groupLow, 0, 2, LEFT, LEFT, first, "l" + first);
    stage(groupLow, 1, 2, RIGHT, RIGHT, first + 1, "r" + first);
    drain().forEach(ByteBuf::release);
  }

  /** Stages, commits and finishes a two-member group; its SNs are (1, first) and (1, first+1). */
  private void finishPair(long groupLow, long first) {
    stagePair(groupLow, first);
    commitGroup(groupLow, 500 + first, 2);
    for (int replica : new int[] {1, 2}) {
      ackFrom(replica, first, Sn.of(1, first), LEFT);
      ackFrom(replica, first + 1, Sn.of(1, first + 1), RIGHT);
    }
    drain().forEach(ByteBuf::release);
  }

  private void errorFor(long sequence, ErrorCode code) {
    ByteBuf frame =
        ErrorDescriptor.encode(
            ByteBufAllocator.DEFAULT, forwardRequestIds.get(sequence), code, "refused");
    try {
      atomic.onPeerFrame(frame);
    } finally {
      frame.release();
    }
    loop.runPendingTasks();
  }

  /** The single frame the client got: an ERROR with this code; returns its message. */
  private String singleError(ErrorCode code) {
    List<ByteBuf> frames = drain();
    assertThat(frames).hasSize(1);
    try {
      assertThat(FrameDescriptor.type(frames.get(0))).isEqualTo(MessageType.ERROR);
      assertThat(ErrorDescriptor.code(frames.get(0))).isEqualTo(code);
      return ErrorDescriptor.message(frames.get(0));
    } finally {
      frames.get(0).release();
    }
  }

  private void deliver(ByteBuf frame) {
    try {
      atomic.onClientFrame(client, frame);
    } finally {
      frame.release();
    }
    loop.runPendingTasks();
  }

  private void ackFrom(int replica, long sequence, long sn, int color) {
    ByteBuf frame =
        AppendAckDescriptor.encode(
            ByteBufAllocator.DEFAULT, 0, SESSION, sequence, sn, color, replica);
    try {
      atomic.onPeerFrame(frame);
    } finally {
      frame.release();
    }
    loop.runPendingTasks();
  }

  private void ackAll(long leftSn, long rightSn) {
    for (int replica : new int[] {1, 2}) {
      ackFrom(replica, 1, leftSn, LEFT);
      ackFrom(replica, 2, rightSn, RIGHT);
    }
  }

  /** The frames the client got, flushed. */
  private List<ByteBuf> drain() {
    return client.sent();
  }

  private List<ByteBuf> drainReader() {
    reader.flushOutbound();
    List<ByteBuf> frames = new ArrayList<>();
    for (ByteBuf buf; (buf = reader.readOutbound()) != null; ) {
      frames.add(buf);
    }
    return frames;
  }

  private List<Byte> drainTypes() {
    List<Byte> types = new ArrayList<>();
    for (ByteBuf frame : drain()) {
      types.add(FrameDescriptor.type(frame));
      frame.release();
    }
    return types;
  }

  private void advance(Duration time) {
    now += time.toNanos();
    loop.advanceTimeBy(time.toNanos(), TimeUnit.NANOSECONDS);
    loop.runScheduledPendingTasks();
    loop.runPendingTasks();
  }

  // ------------------------------------------------------------------ tests

  @Test
  void shouldAckEveryStagedMemberAndNeverForwardAGroupWithoutCommit() {
    stageGroup();

    List<ByteBuf> acks = drain();
    assertThat(acks).hasSize(2);
    for (int i = 0; i < 2; i++) {
      assertThat(FrameDescriptor.type(acks.get(i))).isEqualTo(MessageType.STAGE_ACK);
      assertThat(StageAckDescriptor.memberIndex(acks.get(i))).isEqualTo(i);
      assertThat(StageAckDescriptor.replicaNodeId(acks.get(i))).isEqualTo(NODE);
      acks.get(i).release();
    }
    advance(RETRY.multipliedBy(5));
    restart();
    advance(RETRY.multipliedBy(5));

    assertThat(forwarded).isEmpty();
    assertThat(orderRequests).as("staged members are never pending appends").isEmpty();
  }

  @Test
  void shouldForwardEachMemberWithItsOriginalTokenToEveryReplicaOfItsTargetShard() {
    stageGroup();
    drain().forEach(ByteBuf::release);

    commitGroup(9, 2);

    assertThat(forwarded)
        .containsExactlyInAnyOrder(
            new Sent(1, SESSION, 1, LEFT, LEFT, "l"),
            new Sent(2, SESSION, 1, LEFT, LEFT, "l"),
            new Sent(1, SESSION, 2, RIGHT, RIGHT, "r"),
            new Sent(2, SESSION, 2, RIGHT, RIGHT, "r"));
    assertThat(drain()).as("no answer before every member is committed").isEmpty();
  }

  @Test
  void shouldAnswerTheSnsOnceEveryReplicaOfEveryTargetAcked() {
    stageGroup();
    drain().forEach(ByteBuf::release);
    commitGroup(9, 2);
    long leftSn = Sn.of(1, 5);
    long rightSn = Sn.of(1, 8);

    ackFrom(1, 1, leftSn, LEFT);
    ackFrom(2, 1, leftSn, LEFT);
    ackFrom(1, 2, rightSn, RIGHT);
    assertThat(drain()).isEmpty();
    ackFrom(2, 2, rightSn, RIGHT);

    List<ByteBuf> frames = drain();
    assertThat(frames).hasSize(1);
    ByteBuf result = frames.get(0);
    assertThat(FrameDescriptor.type(result)).isEqualTo(MessageType.GROUP_RESULT);
    assertThat(FrameDescriptor.requestId(result)).isEqualTo(9);
    assertThat(GroupResultDescriptor.count(result)).isEqualTo(2);
    assertThat(GroupResultDescriptor.sn(result, 0)).isEqualTo(leftSn);
    assertThat(GroupResultDescriptor.sn(result, 1)).isEqualTo(rightSn);
    result.release();
  }

  @Test
  void shouldResendUnackedMembersUntilAcked() {
    stageGroup();
    drain().forEach(ByteBuf::release);
    commitGroup(9, 2);
    ackFrom(1, 1, Sn.of(1, 5), LEFT);
    ackFrom(2, 1, Sn.of(1, 5), LEFT);
    ackFrom(1, 2, Sn.of(1, 8), RIGHT);
    forwarded.clear();

    advance(RETRY);

    assertThat(forwarded).containsExactly(new Sent(2, SESSION, 2, RIGHT, RIGHT, "r"));
  }

  @Test
  void shouldForwardAgainWithTheSameTokensAfterARestartMidForward() {
    stageGroup();
    drain().forEach(ByteBuf::release);
    commitGroup(9, 2);
    ackFrom(1, 1, Sn.of(1, 5), LEFT);
    List<Sent> before = new ArrayList<>(forwarded);

    restart();

    assertThat(forwarded).containsExactlyInAnyOrderElementsOf(before);
    ackAll(Sn.of(1, 5), Sn.of(1, 8));
    commitGroup(10, 2); // the client retrying its COMMIT_GROUP against the restarted replica
    List<ByteBuf> frames = drain();
    assertThat(frames).hasSize(1);
    assertThat(GroupResultDescriptor.sn(frames.get(0), 1)).isEqualTo(Sn.of(1, 8));
    frames.get(0).release();
  }

  @Test
  void shouldNotForwardAFinishedGroupAgainAfterARestartAndAnswerFromItsDoneMarker() {
    stageGroup();
    drain().forEach(ByteBuf::release);
    commitGroup(9, 2);
    ackAll(Sn.of(1, 5), Sn.of(1, 8));
    drain().forEach(ByteBuf::release);

    restart();
    advance(RETRY.multipliedBy(3));
    assertThat(forwarded).isEmpty();

    commitGroup(11, 2);
    List<ByteBuf> frames = drain();
    assertThat(frames).hasSize(1);
    assertThat(FrameDescriptor.requestId(frames.get(0))).isEqualTo(11);
    assertThat(GroupResultDescriptor.sn(frames.get(0), 0)).isEqualTo(Sn.of(1, 5));
    assertThat(GroupResultDescriptor.sn(frames.get(0), 1)).isEqualTo(Sn.of(1, 8));
    frames.get(0).release();
    assertThat(forwarded).isEmpty();
  }

  @Test
  void shouldRefuseToCommitAGroupThatIsNotFullyStaged() {
    stage(0, 2, LEFT, LEFT, 1, "l");
    drain().forEach(ByteBuf::release);

    commitGroup(9, 2);

    List<ByteBuf> frames = drain();
    assertThat(frames).hasSize(1);
    assertThat(ErrorDescriptor.code(frames.get(0))).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(ErrorDescriptor.message(frames.get(0))).contains("not fully staged", "(1 of 2)");
    frames.get(0).release();
    assertThat(forwarded).isEmpty();
  }

  @Test
  void shouldRefuseMembersForUnknownColorsOrOverTheSizeLimitWithoutStagingThem() {
    stage(0, 2, 42, LEFT, 1, "l");
    stage(1, 2, RIGHT, RIGHT, 2, "x".repeat(2000));

    List<ByteBuf> frames = drain();
    assertThat(frames).hasSize(2);
    assertThat(ErrorDescriptor.code(frames.get(0))).isEqualTo(ErrorCode.UNKNOWN_COLOR);
    assertThat(ErrorDescriptor.code(frames.get(1))).isEqualTo(ErrorCode.RECORD_TOO_LARGE);
    assertThat(ErrorDescriptor.message(frames.get(1))).contains("member 1");
    frames.forEach(ByteBuf::release);
    assertThat(atomic.groupCount()).isZero();
  }

  @Test
  void shouldKeepStagingEntriesOutOfReadsOfEveryColor() {
    stageGroup();
    drain().forEach(ByteBuf::release);
    ByteBuf watermark = WatermarkDescriptor.encode(ByteBufAllocator.DEFAULT, 0, Sn.of(1, 10));
    try {
      engine.onWatermark(0, watermark);
    } finally {
      watermark.release();
    }
    loop.runPendingTasks();

    // Staging entries got local SNs 1 and 2; no color may show them.
    for (long sn = 1; sn <= 2; sn++) {
      ByteBuf read = ReadDescriptor.encode(ByteBufAllocator.DEFAULT, sn, Color.GLOBAL_ID, sn);
      try {
        engine.onRead(EmbeddedConnections.of(reader), read);
      } finally {
        read.release();
      }
      loop.runPendingTasks();
      List<ByteBuf> frames = drainReader();
      assertThat(frames).hasSize(1);
      assertThat(ReadResponseDescriptor.status(frames.get(0)))
          .as(ByteBufUtil.hexDump(frames.get(0)))
          .isEqualTo(ReadResponseDescriptor.ABSENT);
      frames.get(0).release();
    }
  }

  @Test
  void shouldAbortAnAbandonedGroupDurablyAndAnswerALaterCommitWithGroupAborted() {
    stage(0, 2, LEFT, LEFT, 1, "l");
    drain().forEach(ByteBuf::release);

    advance(ABANDON.minus(RETRY));
    commitGroup(8, 2);
    assertThat(singleError(ErrorCode.INVALID_ARGUMENT)).contains("not fully staged");
    advance(RETRY.multipliedBy(2));

    stage(1, 2, RIGHT, RIGHT, 2, "r"); // the late member is refused
    assertThat(singleError(ErrorCode.GROUP_ABORTED)).contains(Long.toHexString(GROUP_LOW));
    commitGroup(9, 2);
    assertThat(singleError(ErrorCode.GROUP_ABORTED)).contains("aborted", "atomic.abandon-after");

    restart();
    stage(1, 2, RIGHT, RIGHT, 2, "r");
    drain().forEach(ByteBuf::release);
    commitGroup(10, 2);
    assertThat(singleError(ErrorCode.GROUP_ABORTED)).as("the abort survives a restart");
    advance(RETRY.multipliedBy(3));
    assertThat(forwarded).isEmpty();
  }

  @Test
  void shouldNeverAbortAGroupWhoseEndIsWritten() {
    stageGroup();
    drain().forEach(ByteBuf::release);
    commitGroup(9, 2);

    advance(ABANDON.plus(RETRY));
    forwarded.clear();
    advance(RETRY.multipliedBy(16));

    assertThat(forwarded).as("still forwarding").isNotEmpty();
    ackAll(Sn.of(1, 5), Sn.of(1, 8));
    List<ByteBuf> frames = drain();
    assertThat(frames).hasSize(1);
    assertThat(FrameDescriptor.type(frames.get(0))).isEqualTo(MessageType.GROUP_RESULT);
    frames.get(0).release();
  }

  @Test
  void shouldKeepTheGroupsBoundedAndAnswerAForgottenGroupWithOutcomeUnknown() {
    for (int g = 0; g < 4 * RETENTION_COUNT; g++) {
      finishPair(1000 + g, 10 + 2L * g);
      assertThat(atomic.groupCount()).isLessThanOrEqualTo(RETENTION_COUNT);
    }

    commitGroup(1000 + 4 * RETENTION_COUNT - 1, 7, 2); // recent: answered from memory
    List<ByteBuf> frames = drain();
    assertThat(frames).hasSize(1);
    assertThat(FrameDescriptor.type(frames.get(0))).isEqualTo(MessageType.GROUP_RESULT);
    frames.get(0).release();
    commitGroup(1000, 8, 2); // the oldest: forgotten
    assertThat(singleError(ErrorCode.ATOMIC_OUTCOME_UNKNOWN))
        .contains("unknown", "atomic.result-retention", "may have been placed");

    advance(RETENTION.plus(RETRY));
    assertThat(atomic.groupCount()).as("forgotten after the retention").isZero();
  }

  @Test
  void shouldAdvanceTheStagingTrimPointAndRecoverExactlyTheUnfinishedGroups() {
    finishPair(1, 10); // staging SNs 1-4: members, END, DONE
    advance(RETRY);
    assertThat(atomic.stagingTrimPoint()).as("a remembered DONE is kept").isEqualTo(3);
    advance(RETENTION);
    stagePair(2, 20); // SNs 5-6
    commitGroup(2, 21, 2); // END at SN 7: forwarding, no DONE
    stagePair(3, 30); // SNs 8-9, never committed
    advance(RETRY);

    assertThat(atomic.stagingTrimPoint()).isEqualTo(4);

    restart();
    assertThat(atomic.groupCount()).isEqualTo(2);
    assertThat(forwarded)
        .extracting(Sent::sequence)
        .as("only the group with END and no DONE is forwarded again")
        .containsOnly(20L, 21L);
    commitGroup(1, 11, 2);
    assertThat(singleError(ErrorCode.ATOMIC_OUTCOME_UNKNOWN)).contains("unknown");

    forwarded.clear();
    commitGroup(3, 31, 2); // the staged group is intact and can still commit (END at SN 10)
    assertThat(forwarded).extracting(Sent::payload).containsOnly("l30", "r30");
    for (int replica : new int[] {1, 2}) {
      for (long seq : new long[] {20, 21, 30, 31}) {
        ackFrom(replica, seq, Sn.of(1, seq), seq % 2 == 0 ? LEFT : RIGHT);
      }
    }
    drain().forEach(ByteBuf::release); // DONE at SNs 11 and 12
    advance(RETENTION.plus(RETRY));
    assertThat(atomic.stagingTrimPoint()).as("every group settled and forgotten").isEqualTo(12);

    restart();
    assertThat(atomic.groupCount()).isZero();
    stagePair(4, 40); // new staging SNs stay above the trim point
    restart();
    assertThat(atomic.groupCount()).isEqualTo(1);
  }

  @Test
  void shouldStopForwardingAMemberOnAPermanentErrorAndAnswerWhichMemberFailed() {
    stageGroup();
    drain().forEach(ByteBuf::release);
    commitGroup(9, 2);
    ackFrom(1, 1, Sn.of(1, 5), LEFT);
    ackFrom(2, 1, Sn.of(1, 5), LEFT);

    errorFor(2, ErrorCode.RECORD_TOO_LARGE);

    assertThat(singleError(ErrorCode.ATOMIC_MEMBER_FAILED))
        .contains("member 1", "RECORD_TOO_LARGE", "0@" + Sn.of(1, 5));
    assertThat(
            registry
                .counter(
                    AtomicAppends.FORWARD_FAILURES_METRIC, "node", "1", "code", "RECORD_TOO_LARGE")
                .count())
        .isEqualTo(1.0);
    forwarded.clear();
    advance(RETRY.multipliedBy(20));
    assertThat(forwarded).as("no retry of a failed member").isEmpty();

    restart();
    assertThat(forwarded).as("DONE records the failure").isEmpty();
    commitGroup(10, 2);
    assertThat(singleError(ErrorCode.ATOMIC_MEMBER_FAILED)).contains("member 1");
  }

  @Test
  void shouldRetryTransientForwardErrorsWithExponentialBackoff() {
    stageGroup();
    drain().forEach(ByteBuf::release);
    commitGroup(9, 2);
    ackFrom(1, 1, Sn.of(1, 5), LEFT);
    ackFrom(2, 1, Sn.of(1, 5), LEFT);
    errorFor(2, ErrorCode.NOT_READY);
    errorFor(2, ErrorCode.UNKNOWN_COLOR); // the target lags behind this replica's topology
    errorFor(2, ErrorCode.STORAGE_FULL);
    forwarded.clear();

    advance(RETRY); // attempt 2 after 100 ms
    assertThat(forwarded).hasSize(2);
    forwarded.clear();
    advance(RETRY); // attempt 3 only 200 ms later
    assertThat(forwarded).isEmpty();
    advance(RETRY);
    assertThat(forwarded).hasSize(2);
    forwarded.clear();
    advance(RETRY.multipliedBy(3));
    assertThat(forwarded).as("400 ms later").isEmpty();
    advance(RETRY);
    assertThat(forwarded).hasSize(2);

    assertThat(drain()).isEmpty();
    ackFrom(1, 2, Sn.of(1, 8), RIGHT);
    ackFrom(2, 2, Sn.of(1, 8), RIGHT);
    List<ByteBuf> frames = drain();
    assertThat(frames).hasSize(1);
    assertThat(FrameDescriptor.type(frames.get(0))).isEqualTo(MessageType.GROUP_RESULT);
    frames.get(0).release();
    assertThat(registry.find(AtomicAppends.FORWARD_FAILURES_METRIC).counters()).isEmpty();
  }
}
