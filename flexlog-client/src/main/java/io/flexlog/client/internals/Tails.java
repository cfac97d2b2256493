package io.flexlog.client.internals;

import io.flexlog.client.ColorTail;
import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.FlexLogTimeoutException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Shard;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.TailDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.util.collection.LongObjectHashMap;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The tail role (docs/architecture.md#head-and-tail): asks a color's sequencer node for the color's
 * tail (the last SN its role issued) and one replica of each shard of the color's subtree for the
 * trim point. {@link Reads} uses the sequencer's answer to refuse a read above the tail at once.
 * Not on the hot path: one query per {@link #tail} call and per read above what the client knows.
 *
 * <p>Threading: {@link #tail} may be called from any thread and hands the query to the loop;
 * everything else runs on the client's event loop.
 */
final class Tails {
  /** What one node answered: its trim point of the color and its tail. */
  record Answer(long trimPoint, long tail) {}

  private final ClientMetadata metadata;
  private final Outbound outbound;
  private final ClientLoop loop;
  private final NanoClock clock;
  private final long requestTimeoutNs;
  private final LongObjectHashMap<Query> queries = new LongObjectHashMap<>();
  private long nextId = RequestIds.TAIL_BASE;

  private static final class Query {
    final int nodeId;
    final long deadlineNs;
    final Consumer<Answer> onAnswer;
    final Consumer<FlexLogException> onError;

    Query(int nodeId, long deadlineNs, Consumer<Answer> onAnswer, Consumer<FlexLogException> e) {
      this.nodeId = nodeId;
      this.deadlineNs = deadlineNs;
      this.onAnswer = onAnswer;
      this.onError = e;
    }
  }

  Tails(
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

  /** The color's head and tail: the sequencer's tail, the largest trim point of its replicas. */
  CompletableFuture<ColorTail> tail(String colorName) {
    CompletableFuture<ColorTail> future = new CompletableFuture<>();
    try {
      Color color = metadata.color(colorName);
      List<Shard> shards = metadata.shardsOf(color.id());
      if (shards.isEmpty()) {
        throw new FlexLogException("color '" + colorName + "' has no shard");
      }
      loop.execute(() -> start(color, shards, future));
    } catch (RuntimeException e) {
      future.completeExceptionally(e);
    }
    return future;
  }

  private void start(Color color, List<Shard> shards, CompletableFuture<ColorTail> future) {
    List<Answer> replicas = new ArrayList<>();
    long[] sequencerTail = {-1};
    Runnable complete =
        () -> {
          if (sequencerTail[0] >= 0 && replicas.size() == shards.size()) {
            long trimPoint = replicas.stream().mapToLong(Answer::trimPoint).max().orElse(0);
            future.complete(new ColorTail(color.name(), trimPoint + 1, sequencerTail[0]));
          }
        };
    Consumer<FlexLogException> fail = future::completeExceptionally;
    ask(
        color.sequencerId(),
        color.id(),
        answer -> {
          sequencerTail[0] = answer.tail();
          complete.run();
        },
        fail);
    for (Shard shard : shards) {
      ask(
          shard.replicaNodeIds().get(0),
          color.id(),
          answer -> {
            replicas.add(answer);
            complete.run();
          },
          fail);
    }
  }

  /** Asks the sequencer node of {@code colorId} for the color's tail. Loop only. */
  void sequencerTail(int colorId, Consumer<Answer> onAnswer, Consumer<FlexLogException> onError) {
    metadata
        .topology()
        .color(colorId)
        .ifPresentOrElse(
            color -> ask(color.sequencerId(), colorId, onAnswer, onError),
            () -> onError.accept(new FlexLogException("unknown color id " + colorId)));
  }

  private void ask(
      int nodeId, int colorId, Consumer<Answer> onAnswer, Consumer<FlexLogException> onError) {
    long requestId = nextId++;
    queries.put(
        requestId, new Query(nodeId, clock.nanoTime() + requestTimeoutNs, onAnswer, onError));
    outbound.send(nodeId, TailDescriptor.encodeRequest(outbound.alloc(), requestId, colorId));
  }

  /** TAIL_RESPONSE. */
  void onResponse(ByteBuf frame) {
    Query query = queries.remove(FrameDescriptor.requestId(frame));
    if (query != null) {
      query.onAnswer.accept(
          new Answer(TailDescriptor.trimPoint(frame), TailDescriptor.tail(frame)));
    }
  }

  /** An ERROR carrying a tail query's request id. */
  void onError(long requestId, ErrorCode code, String message) {
    Query query = queries.remove(requestId);
    if (query != null) {
      query.onError.accept(FlexLogException.fromWire(code, message));
    }
  }

  /** Fails queries past the request timeout, naming the node that did not answer. */
  void onTick(long nowNs) {
    if (queries.isEmpty()) {
      return;
    }
    List<Long> late = new ArrayList<>();
    queries.forEach(
        (id, query) -> {
          if (nowNs - query.deadlineNs > 0) {
            late.add(id);
          }
        });
    for (long id : late) {
      Query query = queries.remove(id);
      query.onError.accept(
          new FlexLogTimeoutException(
              "node "
                  + query.nodeId
                  + " did not answer a tail request within "
                  + requestTimeoutNs / 1_000_000
                  + " ms ("
                  + outbound.connectionState(query.nodeId)
                  + ")"));
    }
  }

  void failAll(FlexLogException error) {
    List<Query> all = new ArrayList<>(queries.values());
    queries.clear();
    all.forEach(query -> query.onError.accept(error));
  }
}
