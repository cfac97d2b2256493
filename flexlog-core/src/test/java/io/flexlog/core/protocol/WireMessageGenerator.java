package io.flexlog.core.protocol;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.ReplicaDescription;
import io.flexlog.core.model.Retention;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.TierUsage;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.WireMessage.Bytes;
import io.flexlog.core.protocol.WireMessage.OrderEntry;
import io.flexlog.core.protocol.WireMessage.TokenPair;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;

/**
 * Every {@link WireMessage} type with field values drawn from an {@link Entropy}; fields that a
 * descriptor validates (counts, member indexes, read statuses) get values the validator accepts.
 */
final class WireMessageGenerator {
  /** How many message types {@link #message} chooses from: every frame type. */
  static final int TYPES = 42;

  private static final byte[] READ_STATUSES = {
    ReadResponseDescriptor.FOUND,
    ReadResponseDescriptor.ABSENT,
    ReadResponseDescriptor.RETRY,
    ReadResponseDescriptor.TRIMMED
  };
  private static final char[] MESSAGE_EXTRA_CHARS = {' ', '\u00e9', '\u2713', '\u4e2d'};

  private final Entropy e;

  WireMessageGenerator(Entropy entropy) {
    this.e = entropy;
  }

  /** One to {@code max} messages. */
  List<WireMessage> messages(int max) {
    return list(1, max, this::message);
  }

  WireMessage message() {
    return message(e.intBetween(0, TYPES - 1));
  }

  /** The message of type number {@code type}, {@code 0 <= type < TYPES}. */
  WireMessage message(int type) {
    return switch (type) {
      case 0 ->
          new WireMessage.Append(
              e.anyLong(), e.anyLong(), e.anyLong(), e.anyInt(), e.anyInt(), payload());
      case 1 ->
          new WireMessage.AppendAck(
              e.anyLong(), e.anyLong(), e.anyLong(), e.anyLong(), e.anyInt(), e.anyInt());
      case 2 ->
          new WireMessage.OrderRequest(
              e.anyInt(), e.anyInt(), e.anyInt(), list(0, 5, this::tokenPair));
      case 3 ->
          new WireMessage.OrderResponse(
              e.anyInt(),
              e.anyInt(),
              list(0, 5, () -> new OrderEntry(e.anyLong(), e.anyLong(), e.anyLong())));
      case 4 -> new WireMessage.Watermark(e.anyInt(), e.anyLong());
      case 5 -> new WireMessage.Read(e.anyLong(), e.anyInt(), e.anyLong());
      case 6 -> readResponse();
      case 7 -> errorMessage();
      case 8 -> new WireMessage.MetadataRequest(e.anyLong());
      case 9 ->
          new WireMessage.MetadataResponse(
              e.anyLong(), topology(new Random(e.anyLong())), e.intBetween(0, Integer.MAX_VALUE));
      case 10 -> new WireMessage.Hello(e.anyInt(), list(0, 6, e::anyInt));
      case 11 ->
          new WireMessage.SequencerHello(
              e.anyInt(), e.intBetween(1, Integer.MAX_VALUE), e.anyLong());
      case 12 ->
          new WireMessage.RangeRequest(
              e.longBetween(1, Long.MAX_VALUE), e.anyInt(), e.anyInt(), count(), e.anyLong());
      case 13 ->
          new WireMessage.RangeResponse(
              e.anyLong(), e.anyInt(), e.longBetween(1, Long.MAX_VALUE), count());
      case 14 -> new WireMessage.TreeWatermark(e.anyInt(), e.anyInt(), e.anyLong());
      case 15 ->
          new WireMessage.Subscribe(
              e.anyLong(), e.anyInt(), e.anyInt(), e.anyLong(), e.anyLong(), e.anyByte());
      case 16 ->
          new WireMessage.SubscribeRecords(
              e.anyLong(), e.anyInt(), e.anyInt(), e.anyLong(), list(0, 4, this::streamedRecord));
      case 17 ->
          new WireMessage.SubscribeProgress(e.anyLong(), e.anyInt(), e.anyInt(), e.anyLong());
      case 18 -> new WireMessage.SubscribeCredit(e.anyLong(), e.anyLong());
      case 19 -> new WireMessage.Unsubscribe(e.anyLong());
      case 20 ->
          new WireMessage.TopologyMark(
              e.anyLong(),
              e.anyInt(),
              e.anyInt(),
              e.longBetween(1, Long.MAX_VALUE),
              e.longBetween(1, Long.MAX_VALUE));
      case 21 -> stage();
      case 22 ->
          new WireMessage.StageAck(e.anyLong(), e.anyLong(), e.anyLong(), e.anyInt(), e.anyInt());
      case 23 ->
          new WireMessage.CommitGroup(e.anyLong(), e.anyLong(), e.anyLong(), e.anyInt(), count());
      case 24 ->
          new WireMessage.GroupResult(
              e.anyLong(), e.anyLong(), e.anyLong(), e.anyInt(), list(0, 8, e::anyLong));
      case 25 -> new WireMessage.Trim(e.anyLong(), e.anyInt(), e.anyLong());
      case 26 -> new WireMessage.TrimResponse(e.anyLong(), e.anyInt(), e.anyLong(), e.anyLong());
      case 27 -> new WireMessage.Welcome(e.anyInt(), e.anyInt());
      case 28 ->
          new WireMessage.TokenSync(
              e.anyLong(),
              e.anyInt(),
              e.anyInt(),
              e.anyInt(),
              e.anyInt(),
              list(0, 8, this::tokenPair));
      case 29 ->
          new WireMessage.TokenSyncResponse(
              e.anyLong(), e.anyInt(), e.anyInt(), list(0, 8, e::anyLong));
      case 30 ->
          new WireMessage.AppendBatch(
              e.anyLong(),
              e.anyLong(),
              e.anyInt(),
              e.anyInt(),
              list(1, 6, () -> new WireMessage.BatchedRecord(e.anyLong(), payload())));
      case 31 ->
          new WireMessage.AppendBatchAck(
              e.anyLong(), e.anyLong(), e.anyInt(), e.anyInt(), list(0, 6, this::batchOutcome));
      case 32 ->
          new WireMessage.CreateColor(
              e.anyLong(),
              new CreateColorDescriptor.Request(
                  name(), name(), e.anyInt(), e.anyInt(), e.anyInt(), e.anyLong(), e.anyLong()));
      case 33 ->
          new WireMessage.CreateColorResponse(
              e.anyLong(),
              new CreateColorDescriptor.Response(
                  e.intBetween(0, 1) == 1, e.anyLong(), list(0, 4, e::anyInt), colorEntry()));
      case 34 -> new WireMessage.DescribeColors(e.anyLong(), name());
      case 35 ->
          new WireMessage.DescribeColorsResponse(
              e.anyLong(),
              new DescribeColorsDescriptor.Response(e.anyLong(), list(0, 4, this::colorEntry)));
      case 36 -> new WireMessage.DescribeCluster(e.anyLong());
      case 37 ->
          new WireMessage.DescribeClusterResponse(
              e.anyLong(),
              new DescribeClusterDescriptor.Response(
                  topology(new Random(e.anyLong())),
                  e.anyInt(),
                  list(
                      0,
                      3,
                      () ->
                          new DescribeClusterDescriptor.AdminService(
                              e.anyInt(), name(), e.intBetween(0, 65535)))));
      case 38 -> new WireMessage.ReplicaStatus(e.anyLong());
      case 39 -> new WireMessage.ReplicaStatusResponse(e.anyLong(), replicaDescription());
      case 40 ->
          new WireMessage.AlterColor(
              e.anyLong(),
              new AlterColorDescriptor.Request(name(), optionalLong(), optionalLong()));
      case 41 ->
          new WireMessage.AlterColorResponse(
              e.anyLong(),
              new AlterColorDescriptor.Response(
                  e.intBetween(0, 1) == 1, e.anyLong(), list(0, 4, e::anyInt), colorEntry()));
      default -> throw new IllegalArgumentException("no message type " + type);
    };
  }

  /** Any string, non-ASCII characters included; the descriptors do not check names. */
  private String name() {
    char[] chars = new char[e.intBetween(0, 12)];
    for (int i = 0; i < chars.length; i++) {
      int pick = e.intBetween(0, 26 + MESSAGE_EXTRA_CHARS.length - 1);
      chars[i] = pick < 26 ? (char) ('a' + pick) : MESSAGE_EXTRA_CHARS[pick - 26];
    }
    return new String(chars);
  }

  private ReplicaDescription replicaDescription() {
    TierUsage tiers =
        new TierUsage(
            nonNegativeLong(),
            nonNegativeLong(),
            nonNegativeLong(),
            nonNegativeLong(),
            nonNegativeLong(),
            nonNegativeLong(),
            nonNegativeLong(),
            e.intBetween(0, Integer.MAX_VALUE));
    return new ReplicaDescription(
        e.anyInt(),
        tiers,
        list(
            0,
            4,
            () ->
                new ReplicaDescription.ColorState(
                    e.anyInt(),
                    e.anyLong(),
                    e.anyLong(),
                    nonNegativeLong(),
                    new Retention(limit(), limit()))));
  }

  private long nonNegativeLong() {
    return e.anyLong() & Long.MAX_VALUE;
  }

  private long limit() {
    long value = e.anyLong() & Long.MAX_VALUE;
    return value == 0 ? Retention.KEEP : value;
  }

  private ColorEntry colorEntry() {
    return new ColorEntry(
        e.anyInt(),
        name(),
        name(),
        e.anyInt(),
        e.anyInt(),
        list(0, 4, e::anyInt),
        e.anyLong(),
        e.anyLong());
  }

  /** A setting an ALTER_COLOR may leave out: empty, -1 or any value. */
  private java.util.OptionalLong optionalLong() {
    return switch (e.intBetween(0, 2)) {
      case 0 -> java.util.OptionalLong.empty();
      case 1 -> java.util.OptionalLong.of(-1);
      default -> java.util.OptionalLong.of(e.anyLong());
    };
  }

  private WireMessage.BatchOutcome batchOutcome() {
    if (e.intBetween(0, 1) == 0) {
      return new WireMessage.BatchOutcome(e.anyLong(), 1 + (e.anyLong() & Long.MAX_VALUE) / 2, 0);
    }
    return new WireMessage.BatchOutcome(e.anyLong(), 0, e.intBetween(1, 0xFFFF));
  }

  private WireMessage readResponse() {
    long requestId = e.anyLong();
    byte status = READ_STATUSES[e.intBetween(0, READ_STATUSES.length - 1)];
    int color = e.anyInt();
    long sn = e.anyLong();
    long bound = e.anyLong();
    Bytes payload = payload();
    return new WireMessage.ReadResponse(
        requestId,
        status,
        color,
        sn,
        bound,
        status == ReadResponseDescriptor.FOUND ? payload : new Bytes(new byte[0]));
  }

  private WireMessage errorMessage() {
    long requestId = e.anyLong();
    ErrorCode[] codes = ErrorCode.values();
    ErrorCode code = codes[e.intBetween(0, codes.length - 1)];
    char[] chars = new char[e.intBetween(0, 30)];
    for (int i = 0; i < chars.length; i++) {
      int pick = e.intBetween(0, 26 + MESSAGE_EXTRA_CHARS.length - 1);
      chars[i] = pick < 26 ? (char) ('a' + pick) : MESSAGE_EXTRA_CHARS[pick - 26];
    }
    return new WireMessage.ErrorMessage(requestId, code, new String(chars));
  }

  private WireMessage stage() {
    long requestId = e.anyLong();
    long groupHigh = e.anyLong();
    long groupLow = e.anyLong();
    int memberCount = count();
    int memberIndex = e.intBetween(0, memberCount - 1);
    return new WireMessage.Stage(
        requestId,
        groupHigh,
        groupLow,
        memberIndex,
        memberCount,
        e.anyInt(),
        e.anyInt(),
        e.anyInt(),
        e.anyLong(),
        e.anyLong(),
        payload());
  }

  private int count() {
    return e.intBetween(1, Integer.MAX_VALUE);
  }

  private TokenPair tokenPair() {
    return new TokenPair(e.anyLong(), e.anyLong());
  }

  private WireMessage.StreamedRecord streamedRecord() {
    return new WireMessage.StreamedRecord(e.anyLong(), payload());
  }

  private Bytes payload() {
    return new Bytes(e.bytes(64));
  }

  private <T> List<T> list(int min, int max, Supplier<T> element) {
    int size = e.intBetween(min, max);
    List<T> list = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      list.add(element.get());
    }
    return list;
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
