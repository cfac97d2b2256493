package io.flexlog.core.protocol;

import io.flexlog.core.error.ProtocolException;
import io.netty.buffer.ByteBuf;

/** Dispatches body validation by frame type, so handlers can trust the descriptor accessors. */
public final class Frames {
  private Frames() {}

  /**
   * Validates header and body of a complete frame.
   *
   * @throws ProtocolException naming the first problem found
   */
  public static void validate(ByteBuf frame) {
    FrameDescriptor.validateHeader(frame);
    byte type = FrameDescriptor.type(frame);
    switch (type) {
      case MessageType.APPEND -> AppendDescriptor.validate(frame);
      case MessageType.APPEND_ACK -> AppendAckDescriptor.validate(frame);
      case MessageType.ORDER_REQUEST -> OrderRequestDescriptor.validate(frame);
      case MessageType.ORDER_RESPONSE -> OrderResponseDescriptor.validate(frame);
      case MessageType.WATERMARK -> WatermarkDescriptor.validate(frame);
      case MessageType.READ -> ReadDescriptor.validate(frame);
      case MessageType.READ_RESPONSE -> ReadResponseDescriptor.validate(frame);
      case MessageType.ERROR -> ErrorDescriptor.validate(frame);
      case MessageType.METADATA_REQUEST -> MetadataDescriptor.validateRequest(frame);
      case MessageType.METADATA_RESPONSE -> MetadataDescriptor.decodeResponse(frame);
      case MessageType.HELLO -> HelloDescriptor.validate(frame);
      case MessageType.SEQUENCER_HELLO -> SequencerHelloDescriptor.validate(frame);
      case MessageType.RANGE_REQUEST -> RangeRequestDescriptor.validate(frame);
      case MessageType.RANGE_RESPONSE -> RangeResponseDescriptor.validate(frame);
      case MessageType.TREE_WATERMARK -> TreeWatermarkDescriptor.validate(frame);
      case MessageType.WELCOME -> WelcomeDescriptor.validate(frame);
      case MessageType.SUBSCRIBE -> SubscribeDescriptor.validate(frame);
      case MessageType.SUBSCRIBE_RECORDS -> SubscribeRecordsDescriptor.validate(frame);
      case MessageType.SUBSCRIBE_PROGRESS -> SubscribeProgressDescriptor.validate(frame);
      case MessageType.SUBSCRIBE_CREDIT -> SubscribeCreditDescriptor.validate(frame);
      case MessageType.UNSUBSCRIBE -> UnsubscribeDescriptor.validate(frame);
      case MessageType.TOPOLOGY_MARK -> TopologyMarkDescriptor.validate(frame);
      case MessageType.STAGE -> StageDescriptor.validate(frame);
      case MessageType.STAGE_ACK -> StageAckDescriptor.validate(frame);
      case MessageType.COMMIT_GROUP -> CommitGroupDescriptor.validate(frame);
      case MessageType.GROUP_RESULT -> GroupResultDescriptor.validate(frame);
      case MessageType.TRIM -> TrimDescriptor.validate(frame);
      case MessageType.TRIM_RESPONSE -> TrimResponseDescriptor.validate(frame);
      case MessageType.TOKEN_SYNC -> TokenSyncDescriptor.validate(frame);
      case MessageType.TOKEN_SYNC_RESPONSE -> TokenSyncResponseDescriptor.validate(frame);
      case MessageType.SYNC_FETCH -> SyncFetchDescriptor.validate(frame);
      case MessageType.SYNC_ENTRIES -> SyncEntriesDescriptor.validate(frame);
      case MessageType.APPEND_BATCH -> AppendBatchDescriptor.validate(frame);
      case MessageType.APPEND_BATCH_ACK -> AppendBatchAckDescriptor.validate(frame);
      case MessageType.TAIL_REQUEST -> TailDescriptor.validateRequest(frame);
      case MessageType.TAIL_RESPONSE -> TailDescriptor.validateResponse(frame);
      case MessageType.CREATE_COLOR -> CreateColorDescriptor.decodeRequest(frame);
      case MessageType.CREATE_COLOR_RESPONSE -> CreateColorDescriptor.decodeResponse(frame);
      case MessageType.DESCRIBE_COLORS -> DescribeColorsDescriptor.decodeRequest(frame);
      case MessageType.DESCRIBE_COLORS_RESPONSE -> DescribeColorsDescriptor.decodeResponse(frame);
      case MessageType.DESCRIBE_CLUSTER -> DescribeClusterDescriptor.validateRequest(frame);
      case MessageType.DESCRIBE_CLUSTER_RESPONSE -> DescribeClusterDescriptor.decodeResponse(frame);
      case MessageType.ALTER_COLOR -> AlterColorDescriptor.decodeRequest(frame);
      case MessageType.ALTER_COLOR_RESPONSE -> AlterColorDescriptor.decodeResponse(frame);
      case MessageType.REPLICA_STATUS -> ReplicaStatusDescriptor.validateRequest(frame);
      case MessageType.REPLICA_STATUS_RESPONSE -> ReplicaStatusDescriptor.decodeResponse(frame);
      default -> throw new ProtocolException("unknown frame type " + type);
    }
  }
}
