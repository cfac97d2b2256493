package io.flexlog.client.internals;

import io.flexlog.client.TrimResult;
import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.FlexLogTimeoutException;
import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.core.model.Color;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.TrimDescriptor;
import io.flexlog.core.protocol.TrimResponseDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.util.collection.LongObjectHashMap;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The trim role (docs/architecture.md#trim): sends TRIM to every replica node of every shard in the
 * color's subtree and completes once each recorded the trim point durably, with the lowest trim
 * point and the highest tail they answered. A refusal from any node fails the trim with that node's
 * typed error (the nodes that accepted keep their trim point; trimming again at the same SN is
 * harmless); a node silent past the request timeout fails it with {@link FlexLogTimeoutException}.
 *
 * <p>Threading: {@link #trim} may be called from any thread (it resolves the color there) and hands
 * the trim to the loop; everything else runs on the client's event loop.
 */
final class Trims {
  private final ClientMetadata metadata;
  private final Outbound outbound;
  private final ClientLoop loop;
  private final NanoClock clock;
  private final long requestTimeoutNs;

  /** Trims by the request id of each of their nodes. */
  private final LongObjectHashMap<PendingTrim> trims = new LongObjectHashMap<>();

  private long nextId = RequestIds.TRIM_BASE;

  Trims(
      ClientMetadata metadata,
      Outbound outbound,
      ClientLoop loop,
      NanoClock clock,
      long requestTimeoutNs) {
    this.metadata = metadata;
    this.outbound = outbound;
    this.loop = loop;
    this.clock = clock;
    this.requestTimeoutNs = requestTimeoutNs;
  }

  CompletableFuture<TrimResult> trim(String colorName, long sn) {
    CompletableFuture<TrimResult> future = new CompletableFuture<>();
    try {
      if (sn < 1) {
        throw new InvalidArgumentException("a trim SN must be >= 1, got " + sn);
      }
      Color color = metadata.color(colorName);
      int[] nodeIds =
          metadata.shardsOf(color.id()).stream()
              .flatMap(shard -> shard.replicaNodeIds().stream())
              .mapToInt(Integer::intValue)
              .distinct()
              .sorted()
              .toArray();
      if (nodeIds.length == 0) {
        throw new FlexLogException("color '" + colorName + "' has no shard to trim");
      }
      long deadlineNs = clock.nanoTime() + requestTimeoutNs;
      loop.execute(() -> start(color, sn, nodeIds, future, deadlineNs));
    } catch (RuntimeException e) {
      future.completeExceptionally(e);
    }
    return future;
  }

  private void start(
      Color color, long sn, int[] nodeIds, CompletableFuture<TrimResult> future, long deadlineNs) {
    PendingTrim trim =
        new PendingTrim(color.name(), color.id(), sn, nodeIds, nextId, future, deadlineNs);
    nextId += nodeIds.length;
    for (int i = 0; i < nodeIds.length; i++) {
      trims.put(trim.firstRequestId + i, trim);
      outbound.send(
          nodeIds[i],
          TrimDescriptor.encode(outbound.alloc(), trim.firstRequestId + i, color.id(), sn));
    }
  }

  /** TRIM_RESPONSE: one node recorded the trim point. */
  void onResponse(ByteBuf frame) {
    long requestId = FrameDescriptor.requestId(frame);
    PendingTrim trim = trims.get(requestId);
    if (trim == null || trim.future.isDone()) {
      return;
    }
    if (trim.onAnswer(
        requestId, TrimResponseDescriptor.trimPoint(frame), TrimResponseDescriptor.tail(frame))) {
      finish(trim);
      trim.future.complete(trim.result());
    }
  }

  /** An ERROR carrying one of the trims' request ids: the node refused. */
  void onError(long requestId, ErrorCode code, String message) {
    PendingTrim trim = trims.get(requestId);
    if (trim == null || trim.future.isDone()) {
      return;
    }
    finish(trim);
    trim.future.completeExceptionally(
        FlexLogException.fromWire(
            code,
            "trim of color '"
                + trim.colorName
                + "' at SN "
                + trim.sn
                + " refused by replica node "
                + trim.nodeOf(requestId)
                + ": "
                + message));
  }

  /** Fails trims past their deadline. */
  void onTick(long nowNs) {
    if (trims.isEmpty()) {
      return;
    }
    List<PendingTrim> late =
        trims.values().stream().distinct().filter(trim -> nowNs - trim.deadlineNs > 0).toList();
    for (PendingTrim trim : late) {
      finish(trim);
      trim.future.completeExceptionally(
          new FlexLogTimeoutException(
              "trim of color '"
                  + trim.colorName
                  + "' at SN "
                  + trim.sn
                  + " not acknowledged by replica nodes "
                  + trim.unanswered()
                  + " within "
                  + requestTimeoutNs / 1_000_000
                  + " ms; the nodes that answered keep the trim point"));
    }
  }

  /** Fails every trim in flight (the client closes). */
  void failAll(FlexLogException error) {
    for (PendingTrim trim : new ArrayList<>(trims.values()).stream().distinct().toList()) {
      finish(trim);
      trim.future.completeExceptionally(error);
    }
  }

  int inFlight() {
    return (int) trims.values().stream().distinct().count();
  }

  private void finish(PendingTrim trim) {
    for (int i = 0; i < trim.nodeIds.length; i++) {
      trims.remove(trim.firstRequestId + i);
    }
  }
}
