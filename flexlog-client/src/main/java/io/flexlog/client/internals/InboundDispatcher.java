package io.flexlog.client.internals;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.netty.buffer.ByteBuf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands each frame a node sent to the role it answers: by frame type, and an ERROR by the range of
 * its request id (see {@link RequestIds}). It neither keeps nor releases frames.
 *
 * <p>Threading: the client's event loop only.
 */
final class InboundDispatcher {
  private static final Logger LOG = LoggerFactory.getLogger(InboundDispatcher.class);

  private final Appends appends;
  private final BatchAppends batches;
  private final AtomicGroups groups;
  private final Reads reads;
  private final Trims trims;
  private final Subscriptions subscriptions;
  private final Tails tails;

  InboundDispatcher(
      Appends appends,
      BatchAppends batches,
      AtomicGroups groups,
      Reads reads,
      Trims trims,
      Subscriptions subscriptions,
      Tails tails) {
    this.tails = tails;
    this.appends = appends;
    this.batches = batches;
    this.groups = groups;
    this.reads = reads;
    this.trims = trims;
    this.subscriptions = subscriptions;
  }

  /**
   * Dispatches one frame.
   *
   * @return false if no role takes frames of its type
   */
  boolean onFrame(ByteBuf frame) {
    switch (FrameDescriptor.type(frame)) {
      case MessageType.APPEND_ACK -> appends.onAck(frame);
      case MessageType.APPEND_BATCH_ACK -> batches.onAck(frame);
      case MessageType.READ_RESPONSE -> reads.onResponse(frame);
      case MessageType.SUBSCRIBE_RECORDS,
              MessageType.SUBSCRIBE_PROGRESS,
              MessageType.TOPOLOGY_MARK ->
          subscriptions.onFrame(frame);
      case MessageType.STAGE_ACK -> groups.onStageAck(frame);
      case MessageType.GROUP_RESULT -> groups.onGroupResult(frame);
      case MessageType.TRIM_RESPONSE -> trims.onResponse(frame);
      case MessageType.TAIL_RESPONSE -> {
        if (tails == null) {
          return false;
        }
        tails.onResponse(frame);
      }
      case MessageType.ERROR -> onError(frame);
      default -> {
        return false;
      }
    }
    return true;
  }

  private void onError(ByteBuf frame) {
    long requestId = FrameDescriptor.requestId(frame);
    ErrorCode code = ErrorDescriptor.code(frame);
    String message = ErrorDescriptor.message(frame);
    if (requestId >= RequestIds.TAIL_BASE && tails != null) {
      tails.onError(requestId, code, message);
    } else if (requestId >= RequestIds.READ_BASE) {
      reads.onError(requestId, code, message);
    } else if (requestId >= RequestIds.TRIM_BASE) {
      trims.onError(requestId, code, message);
    } else if (requestId >= RequestIds.SUBSCRIPTION_BASE) {
      subscriptions.onError(requestId, code, message);
    } else if (requestId >= RequestIds.ATOMIC_BASE) {
      groups.onError(requestId, code, message);
    } else if (!appends.onError(requestId, code, message)
        && !batches.onError(requestId, code, message)
        && requestId == 0) {
      LOG.warn("node reports a connection error {}: {}", code, message);
    }
  }
}
