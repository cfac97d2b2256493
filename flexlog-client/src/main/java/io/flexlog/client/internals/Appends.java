package io.flexlog.client.internals;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.FlexLogTimeoutException;
import io.flexlog.core.error.RecordTooLargeException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.AppendAckDescriptor;
import io.flexlog.core.protocol.AppendDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.util.collection.LongObjectHashMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The append role: sends each record to every replica of one shard of its color under the record's
 * token, and completes once every replica acknowledged the same SN. An attempt that is not fully
 * acknowledged within the request timeout of its write (see {@link InFlight}) is sent again to the
 * replicas that have not acknowledged; the replicas deduplicate by token. The append fails with
 * {@link FlexLogTimeoutException} at its delivery deadline, or at once with the typed error a
 * replica answers (UNKNOWN_COLOR and UNKNOWN_SHARD first refresh the topology once, see {@link
 * ClientMetadata}).
 *
 * <p>Hot path: one {@link PendingAppend} per record, found by its token sequence in a primitive
 * map; the payload is sent (and re-sent) as retained duplicates, without a copy.
 *
 * <p>Threading: {@link #append} may be called from any thread and hands the append to the loop;
 * everything else runs on the client's event loop.
 */
final class Appends {
  private final ClientMetadata metadata;
  private final Outbound outbound;
  private final ClientLoop loop;
  private final NanoClock clock;
  private final Tokens tokens;
  private final InFlight.AttemptTimer timer;
  private final long deliveryTimeoutNs;
  private final LongObjectHashMap<PendingAppend> pending = new LongObjectHashMap<>();
  private final Consumer<PendingAppend> resend = this::send;
  private int roundRobin;

  Appends(
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
   * Appends a record. The caller must not modify {@code payload} until the future completes: it is
   * sent (and re-sent on retries) without a copy. Ownership of the buffer passes to the client.
   *
   * @param key picks the shard when the color has several (null: round robin); records with the
   *     same key go to the same shard as long as the color's shards do not change
   */
  CompletableFuture<Long> append(String colorName, byte[] key, ByteBuf rawPayload) {
    CompletableFuture<Long> future = new CompletableFuture<>();
    ByteBuf payload = RecordCodec.storable(rawPayload);
    try {
      if (payload.readableBytes() > metadata.maxRecordBytes()) {
        throw new RecordTooLargeException(
            "record of "
                + payload.readableBytes()
                + " bytes exceeds the cluster's max-record-bytes="
                + metadata.maxRecordBytes());
      }
      PendingAppend append =
          new PendingAppend(
              tokens.next(),
              colorName,
              key != null,
              key == null ? 0 : KeyHash.of(key),
              payload,
              future,
              clock.nanoTime() + deliveryTimeoutNs);
      loop.execute(() -> start(append));
    } catch (RuntimeException e) {
      payload.release();
      future.completeExceptionally(e);
    }
    return future;
  }

  private void start(PendingAppend append) {
    if (append.future.isDone()) {
      return;
    }
    Optional<Color> color = metadata.topology().color(append.colorName);
    if (color.isEmpty()) {
      if (!append.refreshed) {
        append.refreshed = true;
        metadata.refresh(() -> start(append));
      } else {
        fail(append, metadata.unknownColor(append.colorName));
      }
      return;
    }
    append.colorId = color.get().id();
    append.limitToRetention(color.get(), deliveryTimeoutNs);
    List<Shard> shards = metadata.shardsOf(append.colorId);
    if (shards.isEmpty()) {
      fail(
          append,
          new FlexLogException("color '" + append.colorName + "' has no shard to append to"));
      return;
    }
    int pick = append.hasKey ? append.keyHash : roundRobin++;
    append.shard = shards.get(Math.floorMod(pick, shards.size()));
    pending.put(append.sequence, append);
    send(append);
  }

  /** Sends the record to every replica of its shard that has not acknowledged it yet. */
  private void send(PendingAppend append) {
    append.startAttempt(timer);
    List<Integer> replicas = append.shard.replicaNodeIds();
    for (int i = 0; i < replicas.size(); i++) {
      if ((append.ackedMask & (1 << i)) != 0) {
        continue;
      }
      append.unwrittenFrames++;
      outbound.send(
          replicas.get(i),
          AppendDescriptor.encodeHeader(
              outbound.alloc(),
              append.sequence,
              tokens.session(),
              append.sequence,
              append.colorId,
              append.shard.id(),
              append.payload.readableBytes()),
          append.payload.retainedDuplicate(),
          append);
    }
  }

  /** APPEND_ACK: one replica stored the record under an SN. */
  void onAck(ByteBuf frame) {
    if (AppendAckDescriptor.tokenSession(frame) != tokens.session()) {
      return;
    }
    PendingAppend append = pending.get(AppendAckDescriptor.tokenSequence(frame));
    if (append == null) {
      return;
    }
    int replica = append.shard.replicaNodeIds().indexOf(AppendAckDescriptor.replicaNodeId(frame));
    if (replica < 0) {
      return;
    }
    long sn = AppendAckDescriptor.sn(frame);
    if (append.sn != 0 && append.sn != sn) {
      fail(
          append,
          new FlexLogException(
              "replicas of shard "
                  + append.shard.id()
                  + " acknowledged different SNs ("
                  + append.sn
                  + ", "
                  + sn
                  + ") for one append to '"
                  + append.colorName
                  + "'"));
      return;
    }
    append.sn = sn;
    append.ackedMask |= 1 << replica;
    if (append.allAcked()) {
      pending.remove(append.sequence);
      append.payload.release();
      append.future.complete(sn);
    }
  }

  /**
   * An ERROR carrying an append's request id.
   *
   * @return false if no append in flight has that id
   */
  boolean onError(long requestId, ErrorCode code, String message) {
    PendingAppend append = pending.get(requestId);
    if (append == null) {
      return false;
    }
    if (code == ErrorCode.NOT_READY) {
      return true; // the replica is synchronising: the retry timer sends again
    }
    FlexLogException error = FlexLogException.fromWire(code, message);
    if (code == ErrorCode.UNKNOWN_COLOR || code == ErrorCode.UNKNOWN_SHARD) {
      onTopologyError(append, error);
    } else {
      fail(append, error);
    }
    return true;
  }

  /** A node does not know the append's color or shard: refetch the topology once, then retry. */
  private void onTopologyError(PendingAppend append, FlexLogException error) {
    if (append.refreshed) {
      return; // the node is behind our topology: the retry timer re-sends until the deadline
    }
    append.refreshed = true;
    metadata.refresh(() -> afterRefresh(append, error));
  }

  private void afterRefresh(PendingAppend append, FlexLogException error) {
    if (append.future.isDone()) {
      return;
    }
    Optional<Color> color = metadata.topology().color(append.colorName);
    if (color.isEmpty() || color.get().id() != append.colorId) {
      fail(append, error);
    } else if (metadata.topology().shard(append.shard.id()).isEmpty()) {
      fail(
          append,
          new FlexLogException(
              "shard "
                  + append.shard.id()
                  + " of color '"
                  + append.colorName
                  + "' was removed while an append to it was in flight; it may still"
                  + " appear, at most once"));
    } else {
      send(append);
    }
  }

  /**
   * The connection to {@code nodeId} failed or closed: every append still waiting for that replica
   * is sent again at {@code resendAtNs} (the reconnect backoff) rather than a request timeout after
   * its write.
   */
  void onConnectionLost(int nodeId, long resendAtNs) {
    for (PendingAppend append : pending.values()) {
      int replica = append.shard == null ? -1 : append.shard.replicaNodeIds().indexOf(nodeId);
      if (replica >= 0 && (append.ackedMask & (1 << replica)) == 0) {
        append.resendBy(resendAtNs);
      }
    }
  }

  /** Re-sends attempts past their request timeout; fails appends past their delivery deadline. */
  void onTick(long nowNs) {
    List<PendingAppend> expired = InFlight.resendOrExpire(pending.values(), nowNs, resend);
    if (expired != null) {
      for (PendingAppend append : expired) {
        fail(
            append,
            new FlexLogTimeoutException(
                "append to color '"
                    + append.colorName
                    + "' not acknowledged within "
                    + append.retriedFor(deliveryTimeoutNs)
                    + " after "
                    + append.attempts
                    + " attempts ("
                    + whoDidNotAnswer(append)
                    + "); it may still appear, at most once"));
      }
    }
  }

  /**
   * Which step did not answer: each replica of the shard that did not acknowledge, with the state
   * of the client's connection to it; when every such replica is connected, they hold the record
   * and wait for its SN, so the color's sequencer node is named.
   */
  private String whoDidNotAnswer(PendingAppend append) {
    Topology topology = metadata.topology();
    List<Integer> replicas = append.shard.replicaNodeIds();
    StringBuilder why = new StringBuilder("shard ").append(append.shard.id()).append(": ");
    boolean allConnected = true;
    String separator = "";
    for (int i = 0; i < replicas.size(); i++) {
      int node = replicas.get(i);
      why.append(separator).append("replica node ").append(node);
      separator = ", ";
      if ((append.ackedMask & (1 << i)) != 0) {
        why.append(" acknowledged");
        continue;
      }
      String state = outbound.connectionState(node);
      allConnected &= state.equals("connected");
      why.append(" at ").append(address(topology, node)).append(' ').append(state);
    }
    if (allConnected) {
      int sequencer = topology.color(append.colorId).map(Color::sequencerId).orElse(-1);
      why.append("; the connected replicas did not get its SN from sequencer node ")
          .append(sequencer)
          .append(" at ")
          .append(address(topology, sequencer))
          .append(" (down, or not reachable from the replicas)");
    }
    return why.toString();
  }

  private static String address(Topology topology, int nodeId) {
    NodeAddress node = topology.nodes().get(nodeId);
    return node == null ? "?" : node.hostPort();
  }

  /** Fails every append in flight (the client closes). */
  void failAll(FlexLogException error) {
    new ArrayList<>(pending.values()).forEach(append -> fail(append, error));
  }

  int inFlight() {
    return pending.size();
  }

  private void fail(PendingAppend append, FlexLogException error) {
    pending.remove(append.sequence);
    append.payload.release();
    append.future.completeExceptionally(error);
  }
}
