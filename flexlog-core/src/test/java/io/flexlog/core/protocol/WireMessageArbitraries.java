package io.flexlog.core.protocol;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.WireMessage.Bytes;
import io.flexlog.core.protocol.WireMessage.OrderEntry;
import io.flexlog.core.protocol.WireMessage.TokenPair;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** jqwik generators for every {@link WireMessage} with arbitrary field values. */
final class WireMessageArbitraries {
  private WireMessageArbitraries() {}

  static Arbitrary<WireMessage> messages() {
    return Arbitraries.oneOf(
        appends(),
        appendAcks(),
        orderRequests(),
        orderResponses(),
        watermarks(),
        reads(),
        readResponses(),
        errors(),
        Arbitraries.longs().map(WireMessage.MetadataRequest::new),
        metadataResponses(),
        hellos(),
        sequencerMessages(),
        subscriptionMessages(),
        atomicMessages(),
        trimMessages(),
        syncMessages());
  }

  /** WELCOME (code 24) and the replica sync frames (codes 50-51). */
  static Arbitrary<WireMessage> syncMessages() {
    Arbitrary<TokenPair> tokens =
        Combinators.combine(Arbitraries.longs(), Arbitraries.longs()).as(TokenPair::new);
    return Arbitraries.oneOf(
        Combinators.combine(Arbitraries.integers(), Arbitraries.integers())
            .as(WireMessage.Welcome::new),
        Combinators.combine(
                Arbitraries.longs(),
                Arbitraries.integers(),
                Arbitraries.integers(),
                Arbitraries.integers(),
                Arbitraries.integers(),
                tokens.list().ofMaxSize(8))
            .as(WireMessage.TokenSync::new),
        Combinators.combine(
                Arbitraries.longs(),
                Arbitraries.integers(),
                Arbitraries.integers(),
                Arbitraries.longs().list().ofMaxSize(8))
            .as(WireMessage.TokenSyncResponse::new));
  }

  /** The trim frames (codes 40-41). */
  static Arbitrary<WireMessage> trimMessages() {
    return Arbitraries.oneOf(
        Combinators.combine(Arbitraries.longs(), Arbitraries.integers(), Arbitraries.longs())
            .as(WireMessage.Trim::new),
        Combinators.combine(
                Arbitraries.longs(),
                Arbitraries.integers(),
                Arbitraries.longs(),
                Arbitraries.longs())
            .as(WireMessage.TrimResponse::new));
  }

  /** The atomic-append frames (codes 30-33), with values their validators accept. */
  static Arbitrary<WireMessage> atomicMessages() {
    Arbitrary<int[]> members =
        Arbitraries.integers()
            .between(1, Integer.MAX_VALUE)
            .flatMap(
                count ->
                    Arbitraries.integers()
                        .between(0, count - 1)
                        .map(index -> new int[] {index, count}));
    Arbitrary<WireMessage> stages =
        Combinators.combine(
                Arbitraries.longs(),
                Arbitraries.longs().tuple2(),
                members,
                Arbitraries.integers(),
                Arbitraries.integers(),
                Arbitraries.integers(),
                Arbitraries.longs().tuple2(),
                payloads())
            .as(
                (requestId, group, member, broker, color, shard, token, payload) ->
                    new WireMessage.Stage(
                        requestId,
                        group.get1(),
                        group.get2(),
                        member[0],
                        member[1],
                        broker,
                        color,
                        shard,
                        token.get1(),
                        token.get2(),
                        payload));
    return Arbitraries.oneOf(
        stages,
        Combinators.combine(
                Arbitraries.longs(),
                Arbitraries.longs(),
                Arbitraries.longs(),
                Arbitraries.integers(),
                Arbitraries.integers())
            .as(WireMessage.StageAck::new),
        Combinators.combine(
                Arbitraries.longs(),
                Arbitraries.longs(),
                Arbitraries.longs(),
                Arbitraries.integers(),
                Arbitraries.integers().greaterOrEqual(1))
            .as(WireMessage.CommitGroup::new),
        Combinators.combine(
                Arbitraries.longs(),
                Arbitraries.longs(),
                Arbitraries.longs(),
                Arbitraries.integers(),
                Arbitraries.longs().list().ofMaxSize(8))
            .as(WireMessage.GroupResult::new));
  }

  /** The sequencer-to-sequencer frames (codes 20-29), with values their validators accept. */
  static Arbitrary<WireMessage> sequencerMessages() {
    Arbitrary<Integer> counts = Arbitraries.integers().greaterOrEqual(1);
    return Arbitraries.oneOf(
        Combinators.combine(
                Arbitraries.integers(),
                Arbitraries.integers().greaterOrEqual(1),
                Arbitraries.longs())
            .as(WireMessage.SequencerHello::new),
        Combinators.combine(
                Arbitraries.longs().greaterOrEqual(1),
                Arbitraries.integers(),
                Arbitraries.integers(),
                counts,
                Arbitraries.longs())
            .as(WireMessage.RangeRequest::new),
        Combinators.combine(
                Arbitraries.longs(),
                Arbitraries.integers(),
                Arbitraries.longs().greaterOrEqual(1),
                counts)
            .as(WireMessage.RangeResponse::new),
        Combinators.combine(Arbitraries.integers(), Arbitraries.integers(), Arbitraries.longs())
            .as(WireMessage.TreeWatermark::new));
  }

  /** The subscription frames (codes 12-16). */
  static Arbitrary<WireMessage> subscriptionMessages() {
    return Arbitraries.oneOf(
        subscribes(),
        subscribeRecords(),
        Combinators.combine(
                Arbitraries.longs(),
                Arbitraries.integers(),
                Arbitraries.integers(),
                Arbitraries.longs())
            .as(WireMessage.SubscribeProgress::new),
        Combinators.combine(Arbitraries.longs(), Arbitraries.longs())
            .as(WireMessage.SubscribeCredit::new),
        Arbitraries.longs().map(WireMessage.Unsubscribe::new),
        Combinators.combine(
                Arbitraries.longs(),
                Arbitraries.integers(),
                Arbitraries.integers(),
                Arbitraries.longs().greaterOrEqual(1),
                Arbitraries.longs().greaterOrEqual(1))
            .as(WireMessage.TopologyMark::new));
  }

  private static Arbitrary<Bytes> payloads() {
    return Arbitraries.bytes().array(byte[].class).ofMaxSize(64).map(Bytes::new);
  }

  private static Arbitrary<WireMessage> appends() {
    return Combinators.combine(
            Arbitraries.longs(),
            Arbitraries.longs(),
            Arbitraries.longs(),
            Arbitraries.integers(),
            Arbitraries.integers(),
            payloads())
        .as(WireMessage.Append::new);
  }

  private static Arbitrary<WireMessage> appendAcks() {
    return Combinators.combine(
            Arbitraries.longs(),
            Arbitraries.longs(),
            Arbitraries.longs(),
            Arbitraries.longs(),
            Arbitraries.integers(),
            Arbitraries.integers())
        .as(WireMessage.AppendAck::new);
  }

  private static Arbitrary<WireMessage> orderRequests() {
    Arbitrary<TokenPair> tokens =
        Combinators.combine(Arbitraries.longs(), Arbitraries.longs()).as(TokenPair::new);
    return Combinators.combine(
            Arbitraries.integers(),
            Arbitraries.integers(),
            Arbitraries.integers(),
            tokens.list().ofMaxSize(5))
        .as(WireMessage.OrderRequest::new);
  }

  private static Arbitrary<WireMessage> orderResponses() {
    Arbitrary<OrderEntry> entries =
        Combinators.combine(Arbitraries.longs(), Arbitraries.longs(), Arbitraries.longs())
            .as(OrderEntry::new);
    return Combinators.combine(
            Arbitraries.integers(), Arbitraries.integers(), entries.list().ofMaxSize(5))
        .as(WireMessage.OrderResponse::new);
  }

  private static Arbitrary<WireMessage> watermarks() {
    return Combinators.combine(Arbitraries.integers(), Arbitraries.longs())
        .as(WireMessage.Watermark::new);
  }

  private static Arbitrary<WireMessage> reads() {
    return Combinators.combine(Arbitraries.longs(), Arbitraries.integers(), Arbitraries.longs())
        .as(WireMessage.Read::new);
  }

  private static Arbitrary<WireMessage> readResponses() {
    Arbitrary<Byte> statuses =
        Arbitraries.of(
            ReadResponseDescriptor.FOUND,
            ReadResponseDescriptor.ABSENT,
            ReadResponseDescriptor.RETRY,
            ReadResponseDescriptor.TRIMMED);
    return Combinators.combine(
            Arbitraries.longs(),
            statuses,
            Arbitraries.integers(),
            Arbitraries.longs(),
            Arbitraries.longs(),
            payloads())
        .as(
            (requestId, status, color, sn, bound, payload) ->
                new WireMessage.ReadResponse(
                    requestId,
                    status,
                    color,
                    sn,
                    bound,
                    status == ReadResponseDescriptor.FOUND ? payload : new Bytes(new byte[0])));
  }

  private static Arbitrary<WireMessage> errors() {
    Arbitrary<String> messages =
        Arbitraries.strings()
            .withCharRange('a', 'z')
            .withChars(' ', '\u00e9', '\u2713', '\u4e2d')
            .ofMaxLength(30);
    return Combinators.combine(Arbitraries.longs(), Arbitraries.of(ErrorCode.class), messages)
        .as(WireMessage.ErrorMessage::new);
  }

  private static Arbitrary<WireMessage> subscribes() {
    return Combinators.combine(
            Arbitraries.longs(),
            Arbitraries.integers(),
            Arbitraries.integers(),
            Arbitraries.longs(),
            Arbitraries.longs(),
            Arbitraries.bytes())
        .as(WireMessage.Subscribe::new);
  }

  private static Arbitrary<WireMessage> subscribeRecords() {
    Arbitrary<WireMessage.StreamedRecord> records =
        Combinators.combine(Arbitraries.longs(), payloads()).as(WireMessage.StreamedRecord::new);
    return Combinators.combine(
            Arbitraries.longs(),
            Arbitraries.integers(),
            Arbitraries.integers(),
            Arbitraries.longs(),
            records.list().ofMaxSize(4))
        .as(WireMessage.SubscribeRecords::new);
  }

  private static Arbitrary<WireMessage> hellos() {
    return Combinators.combine(Arbitraries.integers(), Arbitraries.integers().list().ofMaxSize(6))
        .as(WireMessage.Hello::new);
  }

  private static Arbitrary<WireMessage> metadataResponses() {
    return Combinators.combine(
            Arbitraries.longs(),
            Arbitraries.randomValue(WireMessageArbitraries::topology),
            Arbitraries.integers().greaterOrEqual(0))
        .as(WireMessage.MetadataResponse::new);
  }

  /** A valid topology: one sequencer, 1-4 replicas, a color tree under global, 0-4 shards. */
  static Topology topology(Random random) {
    List<NodeAddress> nodes = new ArrayList<>();
    nodes.add(new NodeAddress(1, NodeAddress.Kind.SEQUENCER, "seq-" + random.nextInt(100), 7000));
    int replicas = 1 + random.nextInt(4);
    for (int i = 0; i < replicas; i++) {
      nodes.add(
          new NodeAddress(
              10 + i, NodeAddress.Kind.REPLICA, "r\u00e9plica-" + i, random.nextInt(65536)));
    }
    List<Color> colors = new ArrayList<>();
    colors.add(new Color(Color.GLOBAL_ID, Color.GLOBAL, Color.NO_PARENT, 1));
    int extraColors = random.nextInt(4);
    for (int i = 1; i <= extraColors; i++) {
      colors.add(new Color(i, "c" + i, random.nextInt(i), 1));
    }
    List<Shard> shards = new ArrayList<>();
    int shardCount = random.nextInt(5);
    for (int s = 0; s < shardCount; s++) {
      List<Integer> placement = new ArrayList<>();
      for (int i = 0; i < replicas; i++) {
        placement.add(10 + i);
      }
      Collections.shuffle(placement, random);
      shards.add(
          new Shard(
              100 + s,
              random.nextInt(colors.size()),
              placement.subList(0, 1 + random.nextInt(replicas))));
    }
    return new Topology(random.nextLong(), nodes, colors, shards);
  }
}
