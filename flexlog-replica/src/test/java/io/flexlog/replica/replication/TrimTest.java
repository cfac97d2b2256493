package io.flexlog.replica.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.AppendDescriptor;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.Frames;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.OrderResponseDescriptor;
import io.flexlog.core.protocol.ReadDescriptor;
import io.flexlog.core.protocol.ReadResponseDescriptor;
import io.flexlog.core.protocol.SubscribeCreditDescriptor;
import io.flexlog.core.protocol.SubscribeDescriptor;
import io.flexlog.core.protocol.SubscribeRecordsDescriptor;
import io.flexlog.core.protocol.TrimDescriptor;
import io.flexlog.core.protocol.TrimResponseDescriptor;
import io.flexlog.core.protocol.WatermarkDescriptor;
import io.flexlog.replica.index.SnIndex;
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
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Trim on one replica (docs/architecture.md#trim), frame by frame on an embedded event loop: TRIM
 * records the trim point durably, reads and subscriptions never serve what lies at or below it.
 */
class TrimTest {
  private static final int NODE = 1;
  private static final int SHARD = 0;
  private static final int GLOBAL = Color.GLOBAL_ID;
  private static final long SN_1 = Sn.of(1, 1);
  private static final long SN_2 = Sn.of(1, 2);
  private static final long SN_3 = Sn.of(1, 3);

  @TempDir Path dir;
  private final EmbeddedChannel client = new EmbeddedChannel();
  private final EmbeddedChannel loop = new EmbeddedChannel();
  private LogStorage storage;
  private ReplicationEngine engine;

  @BeforeEach
  void open() {
    loop.freezeTime();
    openEngine();
  }

  @AfterEach
  void close() {
    loop.finishAndReleaseAll();
    client.finishAndReleaseAll();
    storage.close();
  }

  private void openEngine() {
    storage =
        StorageEngines.open(StorageEngines.MAPPED, dir, 4 << 20, 1 << 20, DurabilityMode.PROCESS);
    SequencerGateway gateway = PeeredReplica.NO_SEQUENCER;
    engine =
        new ReplicationEngine(
            NODE,
            new Topology(
                1,
                List.of(
                    new NodeAddress(0, NodeAddress.Kind.SEQUENCER, "127.0.0.1", 1),
                    new NodeAddress(1, NodeAddress.Kind.REPLICA, "127.0.0.1", 2)),
                List.of(new Color(GLOBAL, Color.GLOBAL, Color.NO_PARENT, 0)),
                List.of(new Shard(SHARD, GLOBAL, List.of(1)))),
            storage,
            new ReplicaLimits(1 << 20, Duration.ofSeconds(1), 1000),
            gateway,
            loop.eventLoop(),
            new SimpleMeterRegistry());
    engine.recover();
  }

  /** Appends three records committed at SN_1..SN_3, covered by a watermark; drains the acks. */
  private void appendThree() {
    watermark(Sn.of(1, 0)); // the link is up before the first SN: nothing was missed
    long[] sns = {SN_1, SN_2, SN_3};
    for (int i = 0; i < sns.length; i++) {
      appendAndOrder(i + 1, sns[i]);
    }
    watermark(SN_3);
    for (int i = 0; i < sns.length; i++) {
      nextFrame().release();
    }
  }

  private void watermark(long sn) {
    ByteBuf frame = WatermarkDescriptor.encode(ByteBufAllocator.DEFAULT, GLOBAL, sn);
    try {
      engine.onWatermark(0, frame);
    } finally {
      frame.release();
    }
    loop.runPendingTasks();
  }

  private ByteBuf trim(int colorId, long sn) {
    ByteBuf frame = TrimDescriptor.encode(ByteBufAllocator.DEFAULT, 99, colorId, sn);
    try {
      Frames.validate(frame);
      engine.onTrim(EmbeddedConnections.of(client), frame);
    } finally {
      frame.release();
    }
    loop.runPendingTasks();
    return nextFrame();
  }

  private ByteBuf read(long sn) {
    ByteBuf frame = ReadDescriptor.encode(ByteBufAllocator.DEFAULT, 5, GLOBAL, sn);
    try {
      engine.onRead(EmbeddedConnections.of(client), frame);
    } finally {
      frame.release();
    }
    loop.runPendingTasks();
    return nextFrame();
  }

  private ByteBuf subscribe(long fromSn, byte flags) {
    return subscribe(fromSn, flags, 1 << 20);
  }

  private ByteBuf subscribe(long fromSn, byte flags, long credit) {
    ByteBuf frame =
        SubscribeDescriptor.encode(
            ByteBufAllocator.DEFAULT, 11, GLOBAL, SHARD, fromSn, credit, flags);
    try {
      engine.onSubscribe(EmbeddedConnections.of(client), frame);
    } finally {
      frame.release();
    }
    loop.runPendingTasks();
    return nextFrame();
  }

  /** The next complete frame the engine wrote to the client, validated, or null. */
  private ByteBuf nextFrame() {
    client.flushOutbound();
    ByteBuf first = client.readOutbound();
    if (first == null) {
      return null;
    }
    int length = first.getInt(first.readerIndex()) + 4;
    ByteBuf whole = Unpooled.buffer(length);
    whole.writeBytes(first);
    first.release();
    while (whole.readableBytes() < length) {
      ByteBuf part = client.readOutbound();
      whole.writeBytes(part);
      part.release();
    }
    Frames.validate(whole);
    return whole;
  }

  private static void assertStatus(ByteBuf response, byte status, long bound) {
    try {
      assertThat(FrameDescriptor.type(response)).isEqualTo(MessageType.READ_RESPONSE);
      assertThat(ReadResponseDescriptor.status(response)).isEqualTo(status);
      assertThat(ReadResponseDescriptor.bound(response)).isEqualTo(bound);
    } finally {
      response.release();
    }
  }

  private static void assertError(ByteBuf error, ErrorCode code, String... fragments) {
    try {
      assertThat(FrameDescriptor.type(error)).isEqualTo(MessageType.ERROR);
      assertThat(ErrorDescriptor.code(error)).isEqualTo(code);
      assertThat(ErrorDescriptor.message(error)).contains(fragments);
    } finally {
      error.release();
    }
  }

  @Test
  void shouldAnswerTrimmedBelowTheTrimPointAndFoundAboveIt() {
    appendThree();
    ByteBuf response = trim(GLOBAL, SN_2);
    assertThat(FrameDescriptor.type(response)).isEqualTo(MessageType.TRIM_RESPONSE);
    assertThat(FrameDescriptor.requestId(response)).isEqualTo(99);
    assertThat(TrimResponseDescriptor.trimPoint(response)).isEqualTo(SN_2);
    assertThat(TrimResponseDescriptor.tail(response)).isEqualTo(SN_3);
    response.release();

    assertStatus(read(SN_1), ReadResponseDescriptor.TRIMMED, SN_2);
    assertStatus(read(SN_2), ReadResponseDescriptor.TRIMMED, SN_2);
    ByteBuf found = read(SN_3);
    assertThat(ReadResponseDescriptor.status(found)).isEqualTo(ReadResponseDescriptor.FOUND);
    assertThat(ByteBufUtil.getBytes(ReadResponseDescriptor.payload(found)))
        .isEqualTo("record-3".getBytes(StandardCharsets.UTF_8));
    found.release();
  }

  @Test
  void shouldDropTheIndexPagesOfTrimmedEntriesAndNotIndexThemAgainAfterARestart() {
    int n = SnIndex.PAGE_ENTRIES + 10;
    appendCommitted(n);
    assertThat(engine.indexedEntries(SHARD, GLOBAL)).isEqualTo(n);
    long through = Sn.of(1, SnIndex.PAGE_ENTRIES + 5);
    trim(GLOBAL, through).release();
    // the first page held SNs 1..4096 only: it goes; the second holds 4097..4106 and stays whole
    assertThat(engine.indexedEntries(SHARD, GLOBAL)).isEqualTo(10);
    assertStatus(read(through), ReadResponseDescriptor.TRIMMED, through);
    ByteBuf found = read(Sn.of(1, n));
    assertThat(ReadResponseDescriptor.status(found)).isEqualTo(ReadResponseDescriptor.FOUND);
    found.release();

    storage.close();
    openEngine(); // recovery indexes only what lies above the trim point
    assertThat(engine.indexedEntries(SHARD, GLOBAL)).isEqualTo(5);
    found = read(Sn.of(1, n));
    assertThat(ReadResponseDescriptor.status(found)).isEqualTo(ReadResponseDescriptor.FOUND);
    found.release();
  }

  /** Appends n records committed at SNs 1..n in one epoch, covered by a watermark. */
  private void appendCommitted(int n) {
    watermark(Sn.of(1, 0));
    for (int i = 1; i <= n; i++) {
      deliverAppend(i);
      deliverOrder(i, Sn.of(1, i));
      if (i % 256 == 0 || i == n) {
        loop.runPendingTasks();
        drainClient();
      }
    }
    watermark(Sn.of(1, n));
    loop.runPendingTasks();
    drainClient();
  }

  private void drainClient() {
    for (Object frame; (frame = client.readOutbound()) != null; ) {
      ((ByteBuf) frame).release();
    }
  }

  @Test
  void shouldKeepTheLargerTrimPointWhenAskedToTrimLess() {
    appendThree();
    trim(GLOBAL, SN_2).release();
    ByteBuf response = trim(GLOBAL, SN_1);
    assertThat(TrimResponseDescriptor.trimPoint(response)).isEqualTo(SN_2);
    response.release();
  }

  @Test
  void shouldRefuseToTrimBeyondTheTail() {
    appendThree();
    assertError(
        trim(GLOBAL, SN_3 + 1),
        ErrorCode.INVALID_ARGUMENT,
        "trim beyond the tail",
        Long.toString(SN_3 + 1),
        Long.toString(SN_3));
    assertStatus(read(SN_1), ReadResponseDescriptor.FOUND, SN_3);
  }

  @Test
  void shouldRefuseToTrimAnUnknownColor() {
    appendThree();
    assertError(trim(42, SN_1), ErrorCode.UNKNOWN_COLOR, "unknown color id 42");
  }

  @Test
  void shouldKeepTheTrimPointAcrossAnEngineRestartOnTheSameStorage() {
    appendThree();
    trim(GLOBAL, SN_2).release();
    storage.close();

    openEngine();
    assertStatus(read(SN_2), ReadResponseDescriptor.TRIMMED, SN_2);
    ByteBuf found = read(SN_3);
    assertThat(ReadResponseDescriptor.status(found)).isEqualTo(ReadResponseDescriptor.FOUND);
    found.release();
  }

  @Test
  void shouldRefuseSubscriptionsFromATrimmedSn() {
    appendThree();
    trim(GLOBAL, SN_2).release();
    assertError(
        subscribe(SN_1, SubscribeDescriptor.REFUSE_TRIMMED),
        ErrorCode.TRIMMED,
        "from SN " + SN_1,
        "trimmed through SN " + SN_2);
  }

  @Test
  void shouldStartSubscriptionsFromZeroAfterTheTrimPoint() {
    appendThree();
    trim(GLOBAL, SN_2).release();
    assertFirstRecord(subscribe(0, (byte) 0), SN_3);
  }

  @Test
  void shouldResumeATrimmedStartAfterTheTrimPointUnlessAskedToRefuse() {
    appendThree();
    trim(GLOBAL, SN_2).release();
    assertFirstRecord(subscribe(SN_1, (byte) 0), SN_3);
  }

  @Test
  void shouldSkipRecordsTrimmedWhileASubscriptionWasOpen() {
    appendThree();
    long oneRecord = SubscribeRecordsDescriptor.recordCost("record-1".length());
    assertFirstRecord(subscribe(SN_1, SubscribeDescriptor.REFUSE_TRIMMED, oneRecord), SN_1);
    trim(GLOBAL, SN_2).release();

    ByteBuf frame = SubscribeCreditDescriptor.encode(ByteBufAllocator.DEFAULT, 11, 1 << 20);
    try {
      engine.onSubscribeCredit(EmbeddedConnections.of(client), frame);
    } finally {
      frame.release();
    }
    loop.runPendingTasks();
    assertFirstRecord(nextFrame(), SN_3);
  }

  /**
   * Told SN_2 for a token whose record never came (its client gave up on this replica), the
   * replica's committed bound stops below it, and a fill asks the peers for it. Once the color is
   * trimmed through SN_2 no peer has the record any more: the replica must stop waiting for it, or
   * its reads and subscriptions stay below SN_2 for ever (found by the group simulation).
   */
  @Test
  void shouldStopAwaitingATrimmedSnWhoseRecordNeverArrived() {
    watermark(Sn.of(1, 0));
    appendAndOrder(1, SN_1);
    orderOnly(2, SN_2);
    appendAndOrder(3, SN_3);
    watermark(SN_3);
    drainClient();
    assertThat(engine.committedThrough(SHARD, GLOBAL)).isEqualTo(SN_1);

    trim(GLOBAL, SN_2).release();

    assertThat(engine.committedThrough(SHARD, GLOBAL)).isEqualTo(SN_3);
    assertFirstRecord(subscribe(SN_3, SubscribeDescriptor.REFUSE_TRIMMED), SN_3);
  }

  @Test
  void shouldKeepAwaitingAnSnAboveTheTrimPoint() {
    watermark(Sn.of(1, 0));
    appendAndOrder(1, SN_1);
    orderOnly(2, SN_2);
    appendAndOrder(3, SN_3);
    watermark(SN_3);
    drainClient();

    trim(GLOBAL, SN_1).release();

    assertThat(engine.committedThrough(SHARD, GLOBAL)).isEqualTo(SN_1);
  }

  private void appendAndOrder(int sequence, long sn) {
    deliverAppend(sequence);
    loop.runPendingTasks();
    orderOnly(sequence, sn);
  }

  /** The ORDER_RESPONSE for token (7, sequence) at {@code sn}, whether or not its record came. */
  private void orderOnly(int sequence, long sn) {
    deliverOrder(sequence, sn);
    loop.runPendingTasks();
  }

  /** APPEND of "record-sequence" under token (7, sequence); the loop does not run. */
  private void deliverAppend(int sequence) {
    byte[] bytes = ("record-" + sequence).getBytes(StandardCharsets.UTF_8);
    ByteBuf header =
        AppendDescriptor.encodeHeader(
            ByteBufAllocator.DEFAULT, sequence, 7, sequence, GLOBAL, SHARD, bytes.length);
    ByteBuf frame = Unpooled.wrappedBuffer(header, Unpooled.wrappedBuffer(bytes));
    try {
      engine.onAppend(EmbeddedConnections.of(client), frame);
    } finally {
      frame.release();
    }
  }

  /** ORDER_RESPONSE for token (7, sequence) at {@code sn}; the loop does not run. */
  private void deliverOrder(int sequence, long sn) {
    ByteBuf response =
        OrderResponseDescriptor.encodeHeader(ByteBufAllocator.DEFAULT, GLOBAL, SHARD, 1);
    OrderResponseDescriptor.writeEntry(response, 7, sequence, sn);
    try {
      engine.onOrderResponse(0, response);
    } finally {
      response.release();
    }
  }

  private static void assertFirstRecord(ByteBuf records, long sn) {
    try {
      assertThat(FrameDescriptor.type(records)).isEqualTo(MessageType.SUBSCRIBE_RECORDS);
      assertThat(SubscribeRecordsDescriptor.count(records)).isEqualTo(1);
      assertThat(SubscribeRecordsDescriptor.sn(records, 0)).isEqualTo(sn);
    } finally {
      records.release();
    }
  }
}
