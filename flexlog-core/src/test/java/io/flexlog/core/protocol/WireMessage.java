package io.flexlog.core.protocol;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Topology;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Test-side model of every wire message: one record per frame type, holding the values a sender
 * passes to the descriptor. {@link #encode} goes through the descriptor's encoder and {@link #read}
 * through every one of its accessors, so {@code read(encode(m)).equals(m)} is a full round trip.
 */
sealed interface WireMessage {

  /** The request id the frame carries; one-way messages carry 0. */
  default long requestId() {
    return 0L;
  }

  /** Encodes with the descriptor into one buffer that the caller owns. */
  ByteBuf encode(ByteBufAllocator alloc);

  /** Bytes with value equality, for payloads. */
  record Bytes(byte[] value) {
    static Bytes of(String ascii) {
      return new Bytes(ascii.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Bytes b && Arrays.equals(value, b.value);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(value);
    }

    @Override
    public String toString() {
      return ByteBufUtil.hexDump(value);
    }
  }

  record TokenPair(long session, long sequence) {}

  record OrderEntry(long session, long sequence, long sn) {}

  record Append(
      long requestId,
      long tokenSession,
      long tokenSequence,
      int colorId,
      int shardId,
      Bytes payload)
      implements WireMessage {
    /** Only the part before the payload; the sender writes the payload as a second buffer. */
    ByteBuf encodeHeader(ByteBufAllocator alloc) {
      return AppendDescriptor.encodeHeader(
          alloc, requestId, tokenSession, tokenSequence, colorId, shardId, payload.value().length);
    }

    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return encodeHeader(alloc).writeBytes(payload.value());
    }
  }

  record AppendAck(
      long requestId, long tokenSession, long tokenSequence, long sn, int colorId, int replicaId)
      implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return AppendAckDescriptor.encode(
          alloc, requestId, tokenSession, tokenSequence, sn, colorId, replicaId);
    }
  }

  record OrderRequest(int colorId, int shardId, int replicaId, List<TokenPair> tokens)
      implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      ByteBuf buf =
          OrderRequestDescriptor.encodeHeader(alloc, colorId, shardId, replicaId, tokens.size());
      for (TokenPair token : tokens) {
        OrderRequestDescriptor.writeToken(buf, token.session(), token.sequence());
      }
      return buf;
    }
  }

  record OrderResponse(int colorId, int shardId, List<OrderEntry> entries) implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      ByteBuf buf = OrderResponseDescriptor.encodeHeader(alloc, colorId, shardId, entries.size());
      for (OrderEntry entry : entries) {
        OrderResponseDescriptor.writeEntry(buf, entry.session(), entry.sequence(), entry.sn());
      }
      return buf;
    }
  }

  record Watermark(int colorId, long watermark) implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return WatermarkDescriptor.encode(alloc, colorId, watermark);
    }
  }

  record Read(long requestId, int colorId, long sn) implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return ReadDescriptor.encode(alloc, requestId, colorId, sn);
    }
  }

  record ReadResponse(long requestId, byte status, int colorId, long sn, long bound, Bytes payload)
      implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return ReadResponseDescriptor.encodeHeader(
              alloc, requestId, status, colorId, sn, bound, payload.value().length)
          .writeBytes(payload.value());
    }
  }

  record ErrorMessage(long requestId, ErrorCode code, String message) implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return ErrorDescriptor.encode(alloc, requestId, code, message);
    }
  }

  record MetadataRequest(long requestId) implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return MetadataDescriptor.encodeRequest(alloc, requestId);
    }
  }

  record MetadataResponse(long requestId, Topology topology, int maxRecordBytes)
      implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return MetadataDescriptor.encodeResponse(alloc, requestId, topology, maxRecordBytes);
    }
  }

  record CreateColor(long requestId, CreateColorDescriptor.Request request) implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return CreateColorDescriptor.encodeRequest(alloc, requestId, request);
    }
  }

  record CreateColorResponse(long requestId, CreateColorDescriptor.Response response)
      implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return CreateColorDescriptor.encodeResponse(alloc, requestId, response);
    }
  }

  record DescribeColors(long requestId, String name) implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return DescribeColorsDescriptor.encodeRequest(alloc, requestId, name);
    }
  }

  record DescribeColorsResponse(long requestId, DescribeColorsDescriptor.Response response)
      implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return DescribeColorsDescriptor.encodeResponse(alloc, requestId, response);
    }
  }

  record DescribeCluster(long requestId) implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return DescribeClusterDescriptor.encodeRequest(alloc, requestId);
    }
  }

  record DescribeClusterResponse(long requestId, DescribeClusterDescriptor.Response response)
      implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return DescribeClusterDescriptor.encodeResponse(alloc, requestId, response);
    }
  }

  record AlterColor(long requestId, AlterColorDescriptor.Request request) implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return AlterColorDescriptor.encodeRequest(alloc, requestId, request);
    }
  }

  record AlterColorResponse(long requestId, AlterColorDescriptor.Response response)
      implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return AlterColorDescriptor.encodeResponse(alloc, requestId, response);
    }
  }

  record ReplicaStatus(long requestId) implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return ReplicaStatusDescriptor.encodeRequest(alloc, requestId);
    }
  }

  record ReplicaStatusResponse(long requestId, io.flexlog.core.model.ReplicaDescription replica)
      implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return ReplicaStatusDescriptor.encodeResponse(alloc, requestId, replica);
    }
  }

  record Hello(int replicaId, List<Integer> shardIds) implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return HelloDescriptor.encode(
          alloc, replicaId, shardIds.stream().mapToInt(Integer::intValue).toArray());
    }
  }

  record SequencerHello(int childNodeId, int incarnation, long topologyVersion)
      implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return SequencerHelloDescriptor.encode(alloc, childNodeId, incarnation, topologyVersion);
    }
  }

  record RangeRequest(
      long requestId, int colorId, int viaColorId, int count, long oldestOutstanding)
      implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return RangeRequestDescriptor.encode(
          alloc, requestId, colorId, viaColorId, count, oldestOutstanding);
    }
  }

  record RangeResponse(long requestId, int colorId, long firstSn, int count)
      implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return RangeResponseDescriptor.encode(alloc, requestId, colorId, firstSn, count);
    }
  }

  record TreeWatermark(int colorId, int viaColorId, long watermark) implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return TreeWatermarkDescriptor.encode(alloc, colorId, viaColorId, watermark);
    }
  }

  record TopologyMark(long requestId, int colorId, int scopeId, long version, long markSn)
      implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return TopologyMarkDescriptor.encode(alloc, requestId, colorId, scopeId, version, markSn);
    }
  }

  record Subscribe(
      long requestId, int colorId, int shardId, long fromSn, long initialCredit, byte flags)
      implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return SubscribeDescriptor.encode(
          alloc, requestId, colorId, shardId, fromSn, initialCredit, flags);
    }
  }

  record StreamedRecord(long sn, Bytes payload) {}

  record SubscribeRecords(
      long requestId, int colorId, int shardId, long progress, List<StreamedRecord> records)
      implements WireMessage {
    /** Header and entry table only; the payloads follow as separate buffers. */
    ByteBuf encodeHeader(ByteBufAllocator alloc) {
      int payloadBytes = records.stream().mapToInt(r -> r.payload().value().length).sum();
      ByteBuf buf =
          SubscribeRecordsDescriptor.encodeHeader(
              alloc, requestId, colorId, shardId, progress, records.size(), payloadBytes, 0);
      for (StreamedRecord record : records) {
        SubscribeRecordsDescriptor.writeEntry(buf, record.sn(), record.payload().value().length);
      }
      return buf;
    }

    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      int payloadBytes = records.stream().mapToInt(r -> r.payload().value().length).sum();
      ByteBuf buf =
          SubscribeRecordsDescriptor.encodeHeader(
              alloc,
              requestId,
              colorId,
              shardId,
              progress,
              records.size(),
              payloadBytes,
              payloadBytes);
      for (StreamedRecord record : records) {
        SubscribeRecordsDescriptor.writeEntry(buf, record.sn(), record.payload().value().length);
      }
      for (StreamedRecord record : records) {
        buf.writeBytes(record.payload().value());
      }
      return buf;
    }
  }

  record BatchedRecord(long tokenSequence, Bytes payload) {}

  record AppendBatch(
      long requestId, long tokenSession, int colorId, int shardId, List<BatchedRecord> records)
      implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      int payloadBytes = records.stream().mapToInt(r -> r.payload().value().length).sum();
      ByteBuf buf =
          AppendBatchDescriptor.encodeHeader(
              alloc, requestId, tokenSession, colorId, shardId, records.size(), payloadBytes);
      for (BatchedRecord record : records) {
        AppendBatchDescriptor.writeEntry(
            buf, record.tokenSequence(), record.payload().value().length);
      }
      ByteBuf whole = alloc.buffer(buf.readableBytes() + payloadBytes);
      whole.writeBytes(buf);
      buf.release();
      for (BatchedRecord record : records) {
        whole.writeBytes(record.payload().value());
      }
      return whole;
    }
  }

  /** One entry of an APPEND_BATCH_ACK: an SN (code 0) or an error code (SN 0). */
  record BatchOutcome(long tokenSequence, long sn, int errorCode) {}

  record AppendBatchAck(
      long requestId, long tokenSession, int colorId, int replicaId, List<BatchOutcome> outcomes)
      implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      ByteBuf buf =
          AppendBatchAckDescriptor.encodeHeader(
              alloc, requestId, tokenSession, colorId, replicaId, outcomes.size());
      for (BatchOutcome outcome : outcomes) {
        if (outcome.errorCode() == 0) {
          AppendBatchAckDescriptor.writeCommitted(buf, outcome.tokenSequence(), outcome.sn());
        } else {
          AppendBatchAckDescriptor.writeRefused(buf, outcome.tokenSequence(), outcome.errorCode());
        }
      }
      return buf;
    }
  }

  record SubscribeProgress(long requestId, int colorId, int shardId, long progress)
      implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return SubscribeProgressDescriptor.encode(alloc, requestId, colorId, shardId, progress);
    }
  }

  record SubscribeCredit(long requestId, long credit) implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return SubscribeCreditDescriptor.encode(alloc, requestId, credit);
    }
  }

  record Unsubscribe(long requestId) implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return UnsubscribeDescriptor.encode(alloc, requestId);
    }
  }

  record Stage(
      long requestId,
      long groupHigh,
      long groupLow,
      int memberIndex,
      int memberCount,
      int brokerShardId,
      int targetColorId,
      int targetShardId,
      long tokenSession,
      long tokenSequence,
      Bytes payload)
      implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return StageDescriptor.encodeHeader(
              alloc,
              requestId,
              groupHigh,
              groupLow,
              memberIndex,
              memberCount,
              brokerShardId,
              targetColorId,
              targetShardId,
              tokenSession,
              tokenSequence,
              payload.value().length)
          .writeBytes(payload.value());
    }
  }

  record StageAck(long requestId, long groupHigh, long groupLow, int memberIndex, int replicaId)
      implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return StageAckDescriptor.encode(
          alloc, requestId, groupHigh, groupLow, memberIndex, replicaId);
    }
  }

  record CommitGroup(
      long requestId, long groupHigh, long groupLow, int brokerShardId, int memberCount)
      implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return CommitGroupDescriptor.encode(
          alloc, requestId, groupHigh, groupLow, brokerShardId, memberCount);
    }
  }

  record GroupResult(long requestId, long groupHigh, long groupLow, int replicaId, List<Long> sns)
      implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return GroupResultDescriptor.encode(
          alloc,
          requestId,
          groupHigh,
          groupLow,
          replicaId,
          sns.stream().mapToLong(Long::longValue).toArray());
    }
  }

  record Trim(long requestId, int colorId, long sn) implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return TrimDescriptor.encode(alloc, requestId, colorId, sn);
    }
  }

  record TrimResponse(long requestId, int colorId, long trimPoint, long tail)
      implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return TrimResponseDescriptor.encode(alloc, requestId, colorId, trimPoint, tail);
    }
  }

  record Welcome(int sequencerNodeId, int incarnation) implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      return WelcomeDescriptor.encode(alloc, sequencerNodeId, incarnation);
    }
  }

  record TokenSync(
      long requestId,
      int shardId,
      int replicaId,
      int sequencerId,
      int incarnation,
      List<TokenPair> tokens)
      implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      ByteBuf buf =
          TokenSyncDescriptor.encodeHeader(
              alloc, requestId, shardId, replicaId, sequencerId, incarnation, tokens.size());
      for (TokenPair token : tokens) {
        TokenSyncDescriptor.writeToken(buf, token.session(), token.sequence());
      }
      return buf;
    }
  }

  record TokenSyncResponse(long requestId, int shardId, int replicaId, List<Long> sns)
      implements WireMessage {
    @Override
    public ByteBuf encode(ByteBufAllocator alloc) {
      ByteBuf buf =
          TokenSyncResponseDescriptor.encodeHeader(
              alloc, requestId, shardId, replicaId, sns.size());
      sns.forEach(buf::writeLong);
      return buf;
    }
  }

  /**
   * Reads a validated frame through every accessor of its descriptor. Does not move the frame's
   * indices and does not release it.
   */
  static WireMessage read(ByteBuf frame) {
    long requestId = FrameDescriptor.requestId(frame);
    byte type = FrameDescriptor.type(frame);
    return switch (type) {
      case MessageType.APPEND ->
          new Append(
              requestId,
              AppendDescriptor.tokenSession(frame),
              AppendDescriptor.tokenSequence(frame),
              AppendDescriptor.colorId(frame),
              AppendDescriptor.shardId(frame),
              bytesOf(AppendDescriptor.payload(frame), AppendDescriptor.payloadLength(frame)));
      case MessageType.APPEND_ACK ->
          new AppendAck(
              requestId,
              AppendAckDescriptor.tokenSession(frame),
              AppendAckDescriptor.tokenSequence(frame),
              AppendAckDescriptor.sn(frame),
              AppendAckDescriptor.colorId(frame),
              AppendAckDescriptor.replicaNodeId(frame));
      case MessageType.ORDER_REQUEST -> readOrderRequest(frame);
      case MessageType.ORDER_RESPONSE -> readOrderResponse(frame);
      case MessageType.WATERMARK ->
          new Watermark(WatermarkDescriptor.colorId(frame), WatermarkDescriptor.watermark(frame));
      case MessageType.READ ->
          new Read(requestId, ReadDescriptor.colorId(frame), ReadDescriptor.sn(frame));
      case MessageType.READ_RESPONSE ->
          new ReadResponse(
              requestId,
              ReadResponseDescriptor.status(frame),
              ReadResponseDescriptor.colorId(frame),
              ReadResponseDescriptor.sn(frame),
              ReadResponseDescriptor.bound(frame),
              bytesOf(
                  ReadResponseDescriptor.payload(frame),
                  ReadResponseDescriptor.payloadLength(frame)));
      case MessageType.ERROR ->
          new ErrorMessage(requestId, ErrorDescriptor.code(frame), ErrorDescriptor.message(frame));
      case MessageType.METADATA_REQUEST -> new MetadataRequest(requestId);
      case MessageType.METADATA_RESPONSE -> {
        MetadataDescriptor.Metadata metadata = MetadataDescriptor.decodeResponse(frame);
        yield new MetadataResponse(requestId, metadata.topology(), metadata.maxRecordBytes());
      }
      case MessageType.HELLO ->
          new Hello(
              HelloDescriptor.replicaNodeId(frame),
              Arrays.stream(HelloDescriptor.shardIds(frame)).boxed().toList());
      case MessageType.SEQUENCER_HELLO ->
          new SequencerHello(
              SequencerHelloDescriptor.childNodeId(frame),
              SequencerHelloDescriptor.incarnation(frame),
              SequencerHelloDescriptor.topologyVersion(frame));
      case MessageType.RANGE_REQUEST ->
          new RangeRequest(
              requestId,
              RangeRequestDescriptor.colorId(frame),
              RangeRequestDescriptor.viaColorId(frame),
              RangeRequestDescriptor.count(frame),
              RangeRequestDescriptor.oldestOutstanding(frame));
      case MessageType.RANGE_RESPONSE ->
          new RangeResponse(
              requestId,
              RangeResponseDescriptor.colorId(frame),
              RangeResponseDescriptor.firstSn(frame),
              RangeResponseDescriptor.count(frame));
      case MessageType.TREE_WATERMARK ->
          new TreeWatermark(
              TreeWatermarkDescriptor.colorId(frame),
              TreeWatermarkDescriptor.viaColorId(frame),
              TreeWatermarkDescriptor.watermark(frame));
      case MessageType.SUBSCRIBE ->
          new Subscribe(
              requestId,
              SubscribeDescriptor.colorId(frame),
              SubscribeDescriptor.shardId(frame),
              SubscribeDescriptor.fromSn(frame),
              SubscribeDescriptor.initialCredit(frame),
              SubscribeDescriptor.flags(frame));
      case MessageType.SUBSCRIBE_RECORDS -> readSubscribeRecords(frame);
      case MessageType.TOPOLOGY_MARK ->
          new TopologyMark(
              requestId,
              TopologyMarkDescriptor.colorId(frame),
              TopologyMarkDescriptor.scopeId(frame),
              TopologyMarkDescriptor.topologyVersion(frame),
              TopologyMarkDescriptor.markSn(frame));
      case MessageType.SUBSCRIBE_PROGRESS ->
          new SubscribeProgress(
              requestId,
              SubscribeProgressDescriptor.colorId(frame),
              SubscribeProgressDescriptor.shardId(frame),
              SubscribeProgressDescriptor.progress(frame));
      case MessageType.SUBSCRIBE_CREDIT ->
          new SubscribeCredit(requestId, SubscribeCreditDescriptor.credit(frame));
      case MessageType.UNSUBSCRIBE -> new Unsubscribe(requestId);
      case MessageType.STAGE ->
          new Stage(
              requestId,
              StageDescriptor.groupHigh(frame),
              StageDescriptor.groupLow(frame),
              StageDescriptor.memberIndex(frame),
              StageDescriptor.memberCount(frame),
              StageDescriptor.brokerShardId(frame),
              StageDescriptor.targetColorId(frame),
              StageDescriptor.targetShardId(frame),
              StageDescriptor.tokenSession(frame),
              StageDescriptor.tokenSequence(frame),
              bytesOf(StageDescriptor.payload(frame), StageDescriptor.payloadLength(frame)));
      case MessageType.STAGE_ACK ->
          new StageAck(
              requestId,
              StageAckDescriptor.groupHigh(frame),
              StageAckDescriptor.groupLow(frame),
              StageAckDescriptor.memberIndex(frame),
              StageAckDescriptor.replicaNodeId(frame));
      case MessageType.COMMIT_GROUP ->
          new CommitGroup(
              requestId,
              CommitGroupDescriptor.groupHigh(frame),
              CommitGroupDescriptor.groupLow(frame),
              CommitGroupDescriptor.brokerShardId(frame),
              CommitGroupDescriptor.memberCount(frame));
      case MessageType.GROUP_RESULT -> readGroupResult(frame);
      case MessageType.TRIM ->
          new Trim(requestId, TrimDescriptor.colorId(frame), TrimDescriptor.sn(frame));
      case MessageType.TRIM_RESPONSE ->
          new TrimResponse(
              requestId,
              TrimResponseDescriptor.colorId(frame),
              TrimResponseDescriptor.trimPoint(frame),
              TrimResponseDescriptor.tail(frame));
      case MessageType.WELCOME ->
          new Welcome(
              WelcomeDescriptor.sequencerNodeId(frame), WelcomeDescriptor.incarnation(frame));
      case MessageType.TOKEN_SYNC -> readTokenSync(frame);
      case MessageType.TOKEN_SYNC_RESPONSE -> readTokenSyncResponse(frame);
      case MessageType.APPEND_BATCH -> readAppendBatch(frame);
      case MessageType.APPEND_BATCH_ACK -> readAppendBatchAck(frame);
      case MessageType.CREATE_COLOR ->
          new CreateColor(requestId, CreateColorDescriptor.decodeRequest(frame));
      case MessageType.CREATE_COLOR_RESPONSE ->
          new CreateColorResponse(requestId, CreateColorDescriptor.decodeResponse(frame));
      case MessageType.DESCRIBE_COLORS ->
          new DescribeColors(requestId, DescribeColorsDescriptor.decodeRequest(frame));
      case MessageType.DESCRIBE_COLORS_RESPONSE ->
          new DescribeColorsResponse(requestId, DescribeColorsDescriptor.decodeResponse(frame));
      case MessageType.DESCRIBE_CLUSTER -> new DescribeCluster(requestId);
      case MessageType.DESCRIBE_CLUSTER_RESPONSE ->
          new DescribeClusterResponse(requestId, DescribeClusterDescriptor.decodeResponse(frame));
      case MessageType.ALTER_COLOR ->
          new AlterColor(requestId, AlterColorDescriptor.decodeRequest(frame));
      case MessageType.ALTER_COLOR_RESPONSE ->
          new AlterColorResponse(requestId, AlterColorDescriptor.decodeResponse(frame));
      case MessageType.REPLICA_STATUS -> new ReplicaStatus(requestId);
      case MessageType.REPLICA_STATUS_RESPONSE ->
          new ReplicaStatusResponse(requestId, ReplicaStatusDescriptor.decodeResponse(frame));
      default -> throw new AssertionError("decoder emitted a frame of unknown type " + type);
    };
  }

  private static Bytes bytesOf(ByteBuf payloadView, int declaredLength) {
    if (payloadView.readableBytes() != declaredLength) {
      throw new AssertionError(
          "payload view has " + payloadView.readableBytes() + " bytes, declared " + declaredLength);
    }
    return new Bytes(ByteBufUtil.getBytes(payloadView));
  }

  private static GroupResult readGroupResult(ByteBuf frame) {
    int count = GroupResultDescriptor.count(frame);
    List<Long> sns = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      sns.add(GroupResultDescriptor.sn(frame, i));
    }
    return new GroupResult(
        FrameDescriptor.requestId(frame),
        GroupResultDescriptor.groupHigh(frame),
        GroupResultDescriptor.groupLow(frame),
        GroupResultDescriptor.replicaNodeId(frame),
        sns);
  }

  private static AppendBatch readAppendBatch(ByteBuf frame) {
    int count = AppendBatchDescriptor.count(frame);
    List<BatchedRecord> records = new ArrayList<>(count);
    int at = AppendBatchDescriptor.payloadsStart(frame);
    for (int i = 0; i < count; i++) {
      int length = AppendBatchDescriptor.payloadLength(frame, i);
      records.add(
          new BatchedRecord(
              AppendBatchDescriptor.tokenSequence(frame, i),
              new Bytes(ByteBufUtil.getBytes(frame, at, length))));
      at += length;
    }
    if (at != frame.writerIndex()) {
      throw new AssertionError("payloads end at " + at + ", frame at " + frame.writerIndex());
    }
    return new AppendBatch(
        FrameDescriptor.requestId(frame),
        AppendBatchDescriptor.tokenSession(frame),
        AppendBatchDescriptor.colorId(frame),
        AppendBatchDescriptor.shardId(frame),
        records);
  }

  private static AppendBatchAck readAppendBatchAck(ByteBuf frame) {
    int count = AppendBatchAckDescriptor.count(frame);
    List<BatchOutcome> outcomes = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      outcomes.add(
          new BatchOutcome(
              AppendBatchAckDescriptor.tokenSequence(frame, i),
              AppendBatchAckDescriptor.sn(frame, i),
              AppendBatchAckDescriptor.errorCode(frame, i)));
    }
    return new AppendBatchAck(
        FrameDescriptor.requestId(frame),
        AppendBatchAckDescriptor.tokenSession(frame),
        AppendBatchAckDescriptor.colorId(frame),
        AppendBatchAckDescriptor.replicaNodeId(frame),
        outcomes);
  }

  private static SubscribeRecords readSubscribeRecords(ByteBuf frame) {
    int count = SubscribeRecordsDescriptor.count(frame);
    List<StreamedRecord> records = new ArrayList<>(count);
    int at = SubscribeRecordsDescriptor.payloadsStart(frame);
    for (int i = 0; i < count; i++) {
      int length = SubscribeRecordsDescriptor.payloadLength(frame, i);
      records.add(
          new StreamedRecord(
              SubscribeRecordsDescriptor.sn(frame, i),
              new Bytes(ByteBufUtil.getBytes(frame, at, length))));
      at += length;
    }
    if (at != frame.writerIndex()) {
      throw new AssertionError("payloads end at " + at + ", frame at " + frame.writerIndex());
    }
    return new SubscribeRecords(
        FrameDescriptor.requestId(frame),
        SubscribeRecordsDescriptor.colorId(frame),
        SubscribeRecordsDescriptor.shardId(frame),
        SubscribeRecordsDescriptor.progress(frame),
        records);
  }

  private static TokenSync readTokenSync(ByteBuf frame) {
    int count = TokenSyncDescriptor.count(frame);
    List<TokenPair> tokens = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      tokens.add(
          new TokenPair(
              TokenSyncDescriptor.tokenSession(frame, i),
              TokenSyncDescriptor.tokenSequence(frame, i)));
    }
    return new TokenSync(
        FrameDescriptor.requestId(frame),
        TokenSyncDescriptor.shardId(frame),
        TokenSyncDescriptor.replicaNodeId(frame),
        TokenSyncDescriptor.sequencerNodeId(frame),
        TokenSyncDescriptor.incarnation(frame),
        tokens);
  }

  private static TokenSyncResponse readTokenSyncResponse(ByteBuf frame) {
    int count = TokenSyncResponseDescriptor.count(frame);
    List<Long> sns = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      sns.add(TokenSyncResponseDescriptor.sn(frame, i));
    }
    return new TokenSyncResponse(
        FrameDescriptor.requestId(frame),
        TokenSyncResponseDescriptor.shardId(frame),
        TokenSyncResponseDescriptor.replicaNodeId(frame),
        sns);
  }

  private static OrderRequest readOrderRequest(ByteBuf frame) {
    int count = OrderRequestDescriptor.count(frame);
    List<TokenPair> tokens = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      tokens.add(
          new TokenPair(
              OrderRequestDescriptor.tokenSession(frame, i),
              OrderRequestDescriptor.tokenSequence(frame, i)));
    }
    return new OrderRequest(
        OrderRequestDescriptor.colorId(frame),
        OrderRequestDescriptor.shardId(frame),
        OrderRequestDescriptor.replicaNodeId(frame),
        tokens);
  }

  private static OrderResponse readOrderResponse(ByteBuf frame) {
    int count = OrderResponseDescriptor.count(frame);
    List<OrderEntry> entries = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      entries.add(
          new OrderEntry(
              OrderResponseDescriptor.tokenSession(frame, i),
              OrderResponseDescriptor.tokenSequence(frame, i),
              OrderResponseDescriptor.sn(frame, i)));
    }
    return new OrderResponse(
        OrderResponseDescriptor.colorId(frame), OrderResponseDescriptor.shardId(frame), entries);
  }
}
