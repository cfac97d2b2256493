package io.flexlog.sequencer;

import static io.flexlog.sequencer.RawFrameClient.entries;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.NodeAddress.Kind;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Token;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.MetadataDescriptor;
import io.flexlog.core.protocol.WatermarkDescriptor;
import io.flexlog.core.protocol.WelcomeDescriptor;
import io.flexlog.sequencer.RawFrameClient.Entry;
import io.flexlog.sequencer.ordering.SequencerMetrics;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** End-to-end behaviour of a sequencer node over loopback sockets with raw-frame replicas. */
class SequencerNodeTest {
  private static final int GLOBAL = Color.GLOBAL_ID;
  private static final int BLUE = 2;
  private static final int SHARD = 0;
  private static final int[] REPLICAS = {10, 11, 12};

  /** Node 0 orders global; color blue is placed on sequencer node 1. */
  private static final Topology TOPOLOGY =
      new Topology(
          1,
          List.of(
              new NodeAddress(0, Kind.SEQUENCER, "127.0.0.1", 0),
              new NodeAddress(1, Kind.SEQUENCER, "127.0.0.1", 0),
              new NodeAddress(10, Kind.REPLICA, "127.0.0.1", 0),
              new NodeAddress(11, Kind.REPLICA, "127.0.0.1", 0),
              new NodeAddress(12, Kind.REPLICA, "127.0.0.1", 0)),
          List.of(new Color(GLOBAL, "global", Color.NO_PARENT, 0), new Color(BLUE, "blue", 0, 1)),
          List.of(new Shard(SHARD, GLOBAL, List.of(10, 11, 12)), new Shard(1, BLUE, List.of(10))));

  @RegisterExtension static final NodeTestResources OPENED = new NodeTestResources();

  @TempDir Path dataDir;
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

  private SequencerNode startNode(long maxCounter) throws IOException {
    SequencerConfig config = SequencerConfig.builder().nodeId(0).dataDir(dataDir).build();
    SequencerNode node = new SequencerNode(config, TOPOLOGY, meters, maxCounter);
    OPENED.add(node);
    node.start();
    return node;
  }

  private SequencerNode startNode() throws IOException {
    return startNode(Sn.MAX_COUNTER);
  }

  private RawFrameClient connect(SequencerNode node) throws InterruptedException {
    RawFrameClient client = OPENED.connect(node.port());
    return client;
  }

  /** Connects a replica, says HELLO for shard 0 and consumes the watermark sent after it. */
  private RawFrameClient replica(SequencerNode node, int replicaId) throws InterruptedException {
    RawFrameClient client = connect(node);
    client.hello(replicaId, SHARD);
    ByteBuf welcome = client.nextWelcome();
    assertThat(WelcomeDescriptor.sequencerNodeId(welcome)).isEqualTo(0);
    assertThat(WelcomeDescriptor.incarnation(welcome)).isEqualTo(node.epoch());
    ByteBuf watermark = client.next(MessageType.WATERMARK);
    assertThat(WatermarkDescriptor.colorId(watermark)).isEqualTo(GLOBAL);
    assertThat(Sn.epoch(WatermarkDescriptor.watermark(watermark))).isEqualTo(node.epoch());
    return client;
  }

  private static Token[] tokens(long session, int count) {
    Token[] tokens = new Token[count];
    for (int i = 0; i < count; i++) {
      tokens[i] = new Token(session, i + 1);
    }
    return tokens;
  }

  /**
   * Reads until every token has an SN and a later watermark covers them all, checking that no
   * watermark ever precedes a response whose SN it covers. Returns the order-response entries.
   */
  private static List<Entry> awaitOrdered(RawFrameClient client, int tokenCount)
      throws InterruptedException {
    List<Entry> entries = new ArrayList<>();
    long highestSn = 0;
    while (true) {
      ByteBuf frame = client.next();
      if (FrameDescriptor.type(frame) == MessageType.ORDER_RESPONSE) {
        for (Entry e : entries(frame)) {
          entries.add(e);
          highestSn = Math.max(highestSn, e.sn());
        }
      } else {
        assertThat(FrameDescriptor.type(frame)).isEqualTo(MessageType.WATERMARK);
        long watermark = WatermarkDescriptor.watermark(frame);
        if (entries.size() >= tokenCount && watermark >= highestSn) {
          return entries;
        }
        assertThat(watermark)
            .as("watermark before the responses it covers")
            .isLessThan(highestSn + 1);
      }
    }
  }

  @Test
  void shouldGiveEachTokenOneSnAndBroadcastTheSameResponsesToEveryReplica() throws Exception {
    SequencerNode node = startNode();
    List<RawFrameClient> replicas = new ArrayList<>();
    for (int id : REPLICAS) {
      replicas.add(replica(node, id));
    }
    Token[] tokens = tokens(42, 5);

    for (int r = 0; r < replicas.size(); r++) {
      replicas.get(r).orderRequest(GLOBAL, SHARD, REPLICAS[r], tokens);
    }

    List<List<Entry>> seen = new ArrayList<>();
    for (RawFrameClient replica : replicas) {
      seen.add(awaitOrdered(replica, tokens.length));
    }
    assertThat(seen.get(0)).extracting(Entry::token).containsExactly(tokens);
    assertThat(seen.get(1)).isEqualTo(seen.get(0));
    assertThat(seen.get(2)).isEqualTo(seen.get(0));
    List<Long> sns = seen.get(0).stream().map(Entry::sn).toList();
    assertThat(sns).isSorted().doesNotHaveDuplicates();
    assertThat(sns).allSatisfy(sn -> assertThat(Sn.epoch(sn)).isEqualTo(node.epoch()));
    assertThat(Sn.counter(sns.get(0))).isEqualTo(1);
    assertThat(meters.get(SequencerMetrics.SNS_ISSUED).counter().count()).isEqualTo(5.0);
  }

  @Test
  void shouldAnswerADuplicateTokenWithItsOriginalSnToTheAskingReplicaOnly() throws Exception {
    SequencerNode node = startNode();
    RawFrameClient first = replica(node, 10);
    RawFrameClient second = replica(node, 11);
    Token original = new Token(7, 1);
    first.orderRequest(GLOBAL, SHARD, 10, original);
    long sn = awaitOrdered(first, 1).get(0).sn();
    assertThat(awaitOrdered(second, 1)).containsExactly(new Entry(original, sn));

    Token fresh = new Token(7, 2);
    second.orderRequest(GLOBAL, SHARD, 11, original, fresh);

    List<Entry> answeredToSecond = awaitOrdered(second, 2);
    assertThat(answeredToSecond).startsWith(new Entry(original, sn));
    assertThat(answeredToSecond.get(1).token()).isEqualTo(fresh);
    assertThat(answeredToSecond.get(1).sn()).isGreaterThan(sn);
    assertThat(awaitOrdered(first, 1)).containsExactly(answeredToSecond.get(1));
  }

  @Test
  void shouldBatchRequestsThatArriveTogether() throws Exception {
    SequencerNode node = startNode();
    RawFrameClient replica = replica(node, 10);
    int requests = 200;
    Token[] tokens = tokens(99, requests);

    for (Token token : tokens) {
      replica.write(replica.orderRequestFrame(GLOBAL, SHARD, 10, token));
    }
    replica.flush();

    List<Entry> entries = awaitOrdered(replica, requests);
    assertThat(entries).extracting(Entry::token).containsExactly(tokens);
    assertThat(entries.stream().map(Entry::sn).toList()).isSorted().doesNotHaveDuplicates();
    DistributionSummary batches = meters.get(SequencerMetrics.BATCH_SIZE).summary();
    assertThat(batches.totalAmount()).isEqualTo(requests);
    assertThat(batches.count()).isLessThan(requests);
  }

  @Test
  void shouldIssueLargerSnsAfterARestartOnTheSameDataDirectory() throws Exception {
    SequencerNode first = startNode();
    RawFrameClient replica = replica(first, 10);
    replica.orderRequest(GLOBAL, SHARD, 10, tokens(1, 3));
    long lastOld = awaitOrdered(replica, 3).get(2).sn();
    int oldEpoch = first.epoch();
    first.close();
    assertThat(replica.awaitClosed()).isTrue();

    SequencerNode second = startNode();
    RawFrameClient again = replica(second, 10);
    again.orderRequest(GLOBAL, SHARD, 10, new Token(2, 1));

    assertThat(second.epoch()).isGreaterThan(oldEpoch);
    assertThat(awaitOrdered(again, 1).get(0).sn()).isGreaterThan(lastOld);
  }

  @Test
  void shouldFailToStartOnACorruptEpochFile() throws Exception {
    Files.writeString(dataDir.resolve("epoch"), "not-an-epoch");
    SequencerConfig config = SequencerConfig.builder().nodeId(0).dataDir(dataDir).build();
    SequencerNode node = new SequencerNode(config, TOPOLOGY, meters);
    OPENED.add(node);

    assertThatThrownBy(node::start)
        .isInstanceOf(IOException.class)
        .hasMessageContaining("corrupt epoch file " + dataDir.resolve("epoch"));
    assertThat(node.port()).isEqualTo(-1);
  }

  @Test
  void shouldRejectAColorHostedElsewhereAndKeepTheConnectionUsable() throws Exception {
    SequencerNode node = startNode();
    RawFrameClient replica = replica(node, 10);

    replica.orderRequest(BLUE, 1, 10, new Token(5, 1));

    ByteBuf error = replica.next(MessageType.ERROR);
    assertThat(ErrorDescriptor.code(error)).isEqualTo(ErrorCode.UNKNOWN_COLOR);
    assertThat(ErrorDescriptor.message(error)).contains("color 2 ('blue')");
    replica.orderRequest(GLOBAL, SHARD, 10, new Token(5, 2));
    assertThat(awaitOrdered(replica, 1)).extracting(Entry::token).containsExactly(new Token(5, 2));
  }

  @Test
  void shouldRejectAnUnknownShard() throws Exception {
    SequencerNode node = startNode();
    RawFrameClient replica = replica(node, 10);

    replica.orderRequest(GLOBAL, 77, 10, new Token(5, 1));

    ByteBuf error = replica.next(MessageType.ERROR);
    assertThat(ErrorDescriptor.code(error)).isEqualTo(ErrorCode.UNKNOWN_SHARD);
    assertThat(ErrorDescriptor.message(error)).contains("77");
  }

  @Test
  void shouldCloseOnlyTheConnectionThatSentMalformedBytes() throws Exception {
    SequencerNode node = startNode();
    RawFrameClient healthy = replica(node, 10);
    RawFrameClient broken = connect(node);

    broken.send(
        Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 12, 1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0}));

    ByteBuf error = broken.next(MessageType.ERROR);
    assertThat(ErrorDescriptor.code(error)).isEqualTo(ErrorCode.PROTOCOL);
    assertThat(ErrorDescriptor.message(error)).contains("bad magic");
    assertThat(broken.awaitClosed()).isTrue();
    healthy.orderRequest(GLOBAL, SHARD, 10, new Token(6, 1));
    assertThat(awaitOrdered(healthy, 1)).extracting(Entry::token).containsExactly(new Token(6, 1));
  }

  @Test
  void shouldAcceptAnOrderRequestBeforeHelloAndRegisterItsSender() throws Exception {
    SequencerNode node = startNode();
    RawFrameClient replica = connect(node);

    replica.orderRequest(GLOBAL, SHARD, 12, new Token(8, 1));

    ByteBuf first = replica.next(MessageType.WATERMARK);
    assertThat(WatermarkDescriptor.watermark(first)).isEqualTo(Sn.of(node.epoch(), 0));
    assertThat(awaitOrdered(replica, 1)).extracting(Entry::token).containsExactly(new Token(8, 1));
  }

  @Test
  void shouldMoveToTheNextEpochWhenTheCounterOverflows() throws Exception {
    SequencerNode node = startNode(2);
    int startEpoch = node.epoch();
    RawFrameClient replica = replica(node, 10);

    replica.orderRequest(GLOBAL, SHARD, 10, tokens(3, 3));

    assertThat(awaitOrdered(replica, 3))
        .extracting(Entry::sn)
        .containsExactly(Sn.of(startEpoch, 1), Sn.of(startEpoch, 2), Sn.of(startEpoch + 1, 1));
    assertThat(node.epoch()).isEqualTo(startEpoch + 1);
    assertThat(meters.get(SequencerMetrics.EPOCH).gauge().value()).isEqualTo(startEpoch + 1);
    assertThat(Files.readString(dataDir.resolve("epoch"))).isEqualTo((startEpoch + 1) + "\n");
  }

  @Test
  void shouldReportAPortInUseAndStayClosed() throws Exception {
    SequencerNode running = startNode();
    SequencerConfig clash =
        SequencerConfig.builder()
            .nodeId(0)
            .dataDir(dataDir.resolve("other"))
            .port(running.port())
            .build();
    SequencerNode node = new SequencerNode(clash, TOPOLOGY, new SimpleMeterRegistry());

    assertThatThrownBy(node::start)
        .isInstanceOf(IOException.class)
        .hasMessageContaining("cannot bind 127.0.0.1:" + running.port());
    node.close();
    assertThatThrownBy(node::start).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void shouldServeTheTopologyAsMetadata() throws Exception {
    SequencerNode node = startNode();
    RawFrameClient client = connect(node);

    client.send(MetadataDescriptor.encodeRequest(client.alloc(), 31));

    ByteBuf response = client.next(MessageType.METADATA_RESPONSE);
    assertThat(FrameDescriptor.requestId(response)).isEqualTo(31);
    MetadataDescriptor.Metadata metadata = MetadataDescriptor.decodeResponse(response);
    assertThat(metadata.topology()).isEqualTo(TOPOLOGY);
    assertThat(metadata.maxRecordBytes()).isEqualTo(SequencerConfig.DEFAULT_MAX_RECORD_BYTES);
  }

  @Test
  void shouldSendEachReplicaOneWatermarkPerBatchAfterItsResponses() throws Exception {
    SequencerNode node = startNode();
    RawFrameClient replica = replica(node, 10);
    replica.orderRequest(GLOBAL, SHARD, 10, tokens(4, 2));

    List<ByteBuf> frames = replica.readThroughWatermark(GLOBAL, Sn.of(node.epoch(), 2));

    Map<Byte, Integer> types = new HashMap<>();
    for (ByteBuf f : frames) {
      types.merge(FrameDescriptor.type(f), 1, Integer::sum);
    }
    assertThat(FrameDescriptor.type(frames.get(frames.size() - 1)))
        .isEqualTo(MessageType.WATERMARK);
    assertThat(types.get(MessageType.WATERMARK)).isEqualTo(1);
  }
}
