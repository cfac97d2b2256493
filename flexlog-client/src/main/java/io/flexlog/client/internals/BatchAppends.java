package io.flexlog.client.internals;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.FlexLogTimeoutException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Shard;
import io.flexlog.core.protocol.AppendBatchAckDescriptor;
import io.flexlog.core.protocol.AppendBatchDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.util.collection.LongObjectHashMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The batched-append role (docs/architecture.md#batched-append): sends the records of one color for
 * one shard in one APPEND_BATCH to every replica of the shard, each record under its own token, and
 * completes each record once every replica acknowledged it at the same SN. An attempt that is not
 * fully acknowledged within the request timeout of its write is sent again (see {@link InFlight}),
 * to each replica with only the records it has not acknowledged (the replicas deduplicate record by
 * record). A record refused by a replica fails alone with the typed error of its code; the batch's
 * other records go on.
 *
 * <p>Order: the batches of one shard leave on the same connections in the order they were handed
 * in, and each replica asks for their SNs in arrival order, so a producer's records of one shard
 * get increasing SNs unless a record fails.
 *
 * <p>Threading: {@link #append} may be called from any thread and hands the batch to the loop;
 * everything else runs on the client's event loop.
 */
final class BatchAppends {
  private static final Logger LOG = LoggerFactory.getLogger(BatchAppends.class);

  private final ClientMetadata metadata;
  private final Outbound outbound;
  private final ClientLoop loop;
  private final NanoClock clock;
  private final Tokens tokens;
  private final InFlight.AttemptTimer timer;
  private final long deliveryTimeoutNs;
  private final LongObjectHashMap<PendingBatch> pending = new LongObjectHashMap<>();
  private final Consumer<PendingBatch> resend = this::send;

  BatchAppends(
      ClientMetadata metadata,
      Outbound outbound,
      ClientLoop loop,
      NanoClock clock,
      Tokens tokens,
      long requestTimeoutNs,
      long deliveryTimeoutNs) {
    this.metadata = metadata;
    this.outbound = outbound;
    this.loop = loop;
    this.clock = clock;
    this.tokens = tokens;
    this.timer = new InFlight.AttemptTimer(clock, requestTimeoutNs);
    this.deliveryTimeoutNs = deliveryTimeoutNs;
  }

  /**
   * Appends {@code payloads} to shard {@code shardId} of the color. Ownership of the buffers passes
   * to the client, which sends them without a copy and releases each once its record completed.
   */
  void append(String colorName, int colorId, int shardId, ByteBuf[] payloads, BatchListener l) {
    append(colorName, colorId, shardId, payloads, null, l);
  }

  /**
   * As {@link #append(String, int, int, ByteBuf[], BatchListener)}, with {@code whole}: a buffer
   * holding exactly the payloads back to back, in order (the producer encodes a batch into one
   * buffer and passes views of it). A frame that carries every record of the batch then carries
   * {@code whole} as one component rather than one per record. Ownership of {@code whole} passes to
   * the client too; it is released once every record completed.
   *
   * @param whole null, or the payloads' bytes back to back
   */
  void append(
      String colorName,
      int colorId,
      int shardId,
      ByteBuf[] payloads,
      ByteBuf whole,
      BatchListener l) {
    long first = tokens.next(payloads.length);
    long deadline = clock.nanoTime() + deliveryTimeoutNs;
    loop.execute(() -> start(first, colorName, colorId, shardId, payloads, whole, l, deadline));
  }

  private void start(
      long first,
      String colorName,
      int colorId,
      int shardId,
      ByteBuf[] payloads,
      ByteBuf whole,
      BatchListener listener,
      long deadline) {
    Optional<Shard> shard = metadata.topology().shard(shardId);
    PendingBatch batch =
        new PendingBatch(
            first, colorName, colorId, shard.orElse(null), payloads, whole, listener, deadline);
    if (shard.isEmpty()) {
      failRemaining(batch, new FlexLogException("shard " + shardId + " is not in the topology"));
      return;
    }
    Color color = metadata.topology().color(colorId).orElse(null);
    if (color != null) {
      batch.limitToRetention(color, deliveryTimeoutNs);
    }
    pending.put(first, batch);
    send(batch);
  }

  /** Sends every unfinished record to every replica that has not acknowledged it. */
  private void send(PendingBatch batch) {
    batch.startAttempt(timer);
    if (batch.attempts > 1) {
      batch.listener.onResent(batch.remaining);
    }
    List<Integer> replicas = batch.shard.replicaNodeIds();
    for (int r = 0; r < replicas.size(); r++) {
      int bit = 1 << r;
      int count = 0;
      int bytes = 0;
      for (int i = 0; i < batch.payloads.length; i++) {
        if (!batch.done[i] && (batch.ackedMasks[i] & bit) == 0) {
          count++;
          bytes += batch.payloads[i].readableBytes();
        }
      }
      if (count > 0) {
        sendTo(replicas.get(r), batch, bit, count, bytes);
      }
    }
  }

  private void sendTo(int node, PendingBatch batch, int bit, int count, int bytes) {
    ByteBuf header =
        AppendBatchDescriptor.encodeHeader(
            outbound.alloc(),
            batch.firstSequence,
            tokens.session(),
            batch.colorId,
            batch.shard.id(),
            count,
            bytes);
    for (int i = 0; i < batch.payloads.length; i++) {
      if (!batch.done[i] && (batch.ackedMasks[i] & bit) == 0) {
        AppendBatchDescriptor.writeEntry(
            header, batch.firstSequence + i, batch.payloads[i].readableBytes());
      }
    }
    // One buffer per frame (a composite of the header and retained views of the payloads): a
    // connection that drops a write while it (re)connects then drops the whole frame, never a part.
    if (count == batch.payloads.length && batch.whole != null) {
      // Every record of the batch, back to back in one buffer: two components, not count + 1.
      CompositeByteBuf frame = outbound.alloc().compositeBuffer(2);
      frame.addComponent(true, header);
      frame.addComponent(true, batch.whole.retainedDuplicate());
      batch.unwrittenFrames++;
      outbound.send(node, frame, batch);
      return;
    }
    CompositeByteBuf frame = outbound.alloc().compositeBuffer(count + 1);
    frame.addComponent(true, header);
    for (int i = 0; i < batch.payloads.length; i++) {
      if (!batch.done[i] && (batch.ackedMasks[i] & bit) == 0) {
        frame.addComponent(true, batch.payloads[i].retainedDuplicate());
      }
    }
    batch.unwrittenFrames++;
    outbound.send(node, frame, batch);
  }

  /** APPEND_BATCH_ACK: one replica's outcomes for some records of a batch. */
  void onAck(ByteBuf frame) {
    if (AppendBatchAckDescriptor.tokenSession(frame) != tokens.session()) {
      return;
    }
    PendingBatch batch = pending.get(FrameDescriptor.requestId(frame));
    if (batch == null) {
      return;
    }
    int replicaId = AppendBatchAckDescriptor.replicaNodeId(frame);
    int replica = batch.shard.replicaNodeIds().indexOf(replicaId);
    if (replica < 0) {
      return;
    }
    for (int e = 0; e < AppendBatchAckDescriptor.count(frame); e++) {
      int i = batch.indexOf(AppendBatchAckDescriptor.tokenSequence(frame, e));
      if (i < 0 || batch.done[i]) {
        continue;
      }
      int code = AppendBatchAckDescriptor.errorCode(frame, e);
      if (code != 0) {
        onRefused(batch, i, replicaId, ErrorCode.of(code));
      } else {
        onCommitted(batch, i, replica, AppendBatchAckDescriptor.sn(frame, e));
      }
    }
    if (batch.remaining == 0) {
      pending.remove(batch.firstSequence);
    }
  }

  private void onCommitted(PendingBatch batch, int i, int replica, long sn) {
    if (batch.sns[i] != 0 && batch.sns[i] != sn) {
      finish(
          batch,
          i,
          0,
          new FlexLogException(
              "replicas of shard "
                  + batch.shard.id()
                  + " acknowledged different SNs ("
                  + batch.sns[i]
                  + ", "
                  + sn
                  + ") for one record appended to '"
                  + batch.colorName
                  + "'"));
      return;
    }
    batch.sns[i] = sn;
    batch.ackedMasks[i] |= 1 << replica;
    if (batch.ackedMasks[i] == batch.allReplicasMask()) {
      finish(batch, i, sn, null);
    }
  }

  private void onRefused(PendingBatch batch, int i, int replicaId, ErrorCode code) {
    if (code == ErrorCode.NOT_READY) {
      return; // the retry timer sends it again
    }
    finish(
        batch,
        i,
        0,
        FlexLogException.fromWire(
            code,
            "replica "
                + replicaId
                + " refused record "
                + i
                + " of a batch of "
                + batch.payloads.length
                + " to color '"
                + batch.colorName
                + "' ("
                + code
                + (code == ErrorCode.RECORD_TOO_LARGE
                    ? ", over the cluster's max-record-bytes=" + metadata.maxRecordBytes()
                    : "")
                + ")"));
  }

  /**
   * An ERROR carrying a batch's request id: the whole batch was refused.
   *
   * @return false if no batch in flight has that id
   */
  boolean onError(long requestId, ErrorCode code, String message) {
    PendingBatch batch = pending.get(requestId);
    if (batch == null) {
      return false;
    }
    if (code == ErrorCode.NOT_READY) {
      return true;
    }
    FlexLogException error = FlexLogException.fromWire(code, message);
    if ((code == ErrorCode.UNKNOWN_COLOR || code == ErrorCode.UNKNOWN_SHARD) && !batch.refreshed) {
      batch.refreshed = true;
      metadata.refresh(() -> afterRefresh(batch, error));
    } else if (code != ErrorCode.UNKNOWN_COLOR && code != ErrorCode.UNKNOWN_SHARD) {
      failRemaining(batch, error);
    }
    return true;
  }

  private void afterRefresh(PendingBatch batch, FlexLogException error) {
    if (batch.remaining == 0) {
      return;
    }
    var color = metadata.topology().color(batch.colorName);
    if (color.isEmpty() || color.get().id() != batch.colorId) {
      failRemaining(batch, error);
    } else if (metadata.topology().shard(batch.shard.id()).isEmpty()) {
      failRemaining(
          batch,
          new FlexLogException(
              "shard "
                  + batch.shard.id()
                  + " of color '"
                  + batch.colorName
                  + "' was removed while a batch to it was in flight; its records may still"
                  + " appear, at most once each"));
    } else {
      send(batch);
    }
  }

  /** Re-sends attempts past their request timeout; fails batches past their delivery deadline. */
  void onTick(long nowNs) {
    List<PendingBatch> expired = InFlight.resendOrExpire(pending.values(), nowNs, resend);
    if (expired != null) {
      for (PendingBatch batch : expired) {
        failRemaining(
            batch,
            new FlexLogTimeoutException(
                "batch to color '"
                    + batch.colorName
                    + "' not acknowledged by every replica of shard "
                    + batch.shard.id()
                    + " within "
                    + batch.retriedFor(deliveryTimeoutNs)
                    + " after "
                    + batch.attempts
                    + " attempts; each record may still appear, at most once"));
      }
    }
  }

  /**
   * The connection to {@code nodeId} failed or closed: no acknowledgement will come on it, so every
   * batch still waiting for that replica is sent again at {@code resendAtNs} (the reconnect
   * backoff) rather than a request timeout after its write.
   */
  void onConnectionLost(int nodeId, long resendAtNs) {
    for (PendingBatch batch : pending.values()) {
      int replica = batch.shard.replicaNodeIds().indexOf(nodeId);
      if (replica >= 0 && batch.waitsFor(1 << replica)) {
        batch.resendBy(resendAtNs);
      }
    }
  }

  /** Fails every record in flight (the client closes). */
  void failAll(FlexLogException error) {
    new ArrayList<>(pending.values()).forEach(batch -> failRemaining(batch, error));
  }

  int inFlight() {
    return pending.size();
  }

  private void failRemaining(PendingBatch batch, FlexLogException error) {
    for (int i = 0; i < batch.payloads.length; i++) {
      if (!batch.done[i]) {
        finish(batch, i, 0, error);
      }
    }
    pending.remove(batch.firstSequence);
  }

  private void finish(PendingBatch batch, int i, long sn, FlexLogException error) {
    batch.done[i] = true;
    batch.remaining--;
    batch.payloads[i].release();
    if (batch.remaining == 0) {
      batch.releaseWhole();
    }
    try {
      if (error == null) {
        batch.listener.onAppended(i, sn);
      } else {
        batch.listener.onFailed(i, error);
      }
    } catch (RuntimeException e) {
      // a listener's bug must not stop the loop; the producer's listener never throws
      LOG.warn("batch listener failed", e);
    }
  }
}
