package io.flexlog.client.internals;

import io.flexlog.client.LogRecord;
import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.FlexLogTimeoutException;
import io.flexlog.core.error.SnBeyondTailException;
import io.flexlog.core.error.TrimmedException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Shard;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.ReadDescriptor;
import io.flexlog.core.protocol.ReadResponseDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.util.collection.LongObjectHashMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The read role: reads a color at an SN by asking one replica of every shard in the color's subtree
 * (the SN may live in any of them). The first FOUND answers; the read is a hole once every shard
 * answered ABSENT; TRIMMED fails it with {@link TrimmedException}. Any other status (the replica
 * cannot decide yet) asks the shard's next replica; once each was asked, it backs off, 1 ms
 * doubling to 50 ms, until the read timeout. The first undecided answer also asks the color's
 * sequencer for its tail ({@link Tails}): a read above it fails at once.
 *
 * <p>Threading: {@link #read} may be called from any thread and hands the read to the loop;
 * everything else runs on the client's event loop.
 */
final class Reads {
  private static final long MAX_BACKOFF_US = 50_000;

  private final ClientMetadata metadata;
  private final Outbound outbound;
  private final ClientLoop loop;
  private final NanoClock clock;
  private final long readTimeoutNs;
  private final Tails tails;

  /** Reads by the request id of each of their shards. */
  private final LongObjectHashMap<PendingRead> reads = new LongObjectHashMap<>();

  private long nextId = RequestIds.READ_BASE;
  private int roundRobin;

  Reads(
      ClientMetadata metadata,
      Outbound outbound,
      ClientLoop loop,
      NanoClock clock,
      long readTimeoutNs) {
    this(metadata, outbound, loop, clock, readTimeoutNs, null);
  }

  /**
   * @param tails asks the color's sequencer for its tail when a read cannot be decided, so that a
   *     read above the tail fails at once; null to wait for the read timeout instead
   */
  Reads(
      ClientMetadata metadata,
      Outbound outbound,
      ClientLoop loop,
      NanoClock clock,
      long readTimeoutNs,
      Tails tails) {
    this.tails = tails;
    this.metadata = metadata;
    this.outbound = outbound;
    this.loop = loop;
    this.clock = clock;
    this.readTimeoutNs = readTimeoutNs;
  }

  /** Reads the record of a color at an SN: empty for a hole. */
  CompletableFuture<Optional<LogRecord>> read(String colorName, long sn) {
    CompletableFuture<Optional<LogRecord>> future = new CompletableFuture<>();
    PendingRead read = new PendingRead(colorName, sn, future, clock.nanoTime() + readTimeoutNs);
    loop.execute(() -> start(read));
    return future;
  }

  private void start(PendingRead read) {
    if (read.future.isDone()) {
      return;
    }
    Optional<Color> color = metadata.topology().color(read.colorName);
    if (color.isEmpty()) {
      if (!read.refreshed) {
        read.refreshed = true;
        metadata.refresh(() -> start(read));
      } else {
        read.future.completeExceptionally(metadata.unknownColor(read.colorName));
      }
      return;
    }
    List<Shard> shards = metadata.shardsOf(color.get().id());
    if (shards.isEmpty()) {
      read.future.completeExceptionally(
          new FlexLogException("color '" + read.colorName + "' has no shard to read from"));
      return;
    }
    read.target(color.get().id(), shards, nextId);
    nextId += shards.size();
    for (int i = 0; i < read.shards.size(); i++) {
      reads.put(read.firstRequestId + i, read);
      read.replicaCursor[i] =
          Math.floorMod(roundRobin++, read.shards.get(i).replicaNodeIds().size());
      send(read, i);
    }
  }

  private void send(PendingRead read, int shardIndex) {
    List<Integer> replicas = read.shards.get(shardIndex).replicaNodeIds();
    int replica = replicas.get(read.replicaCursor[shardIndex] % replicas.size());
    outbound.send(
        replica,
        ReadDescriptor.encode(
            outbound.alloc(), read.firstRequestId + shardIndex, read.colorId, read.sn));
  }

  /** READ_RESPONSE for one shard of a read. */
  void onResponse(ByteBuf frame) {
    long requestId = FrameDescriptor.requestId(frame);
    PendingRead read = reads.get(requestId);
    if (read == null || read.future.isDone()) {
      return;
    }
    int shardIndex = (int) (requestId - read.firstRequestId);
    switch (ReadResponseDescriptor.status(frame)) {
      case ReadResponseDescriptor.FOUND -> {
        ByteBuf payload = ReadResponseDescriptor.payload(frame);
        finish(read);
        try {
          read.future.complete(
              Optional.of(
                  RecordCodec.read(
                      read.colorName,
                      read.sn,
                      payload,
                      payload.readerIndex(),
                      payload.readableBytes())));
        } catch (FlexLogException e) {
          read.future.completeExceptionally(e);
        }
      }
      case ReadResponseDescriptor.ABSENT -> {
        read.absent[shardIndex] = true;
        if (read.allAbsent()) {
          finish(read);
          read.future.complete(Optional.empty());
        }
      }
      case ReadResponseDescriptor.TRIMMED -> {
        finish(read);
        read.future.completeExceptionally(
            new TrimmedException(
                "SN "
                    + read.sn
                    + " of color '"
                    + read.colorName
                    + "' is at or below the trim point "
                    + ReadResponseDescriptor.bound(frame)));
      }
      default -> retry(read, shardIndex);
    }
  }

  /** Asks the next replica of the shard; once each was asked, backs off (1 ms doubling to 50). */
  private void retry(PendingRead read, int shardIndex) {
    if (tails != null && !read.tailAsked) {
      read.tailAsked = true;
      checkTail(read);
    }
    read.retries++;
    read.replicaCursor[shardIndex]++;
    int replicas = read.shards.get(shardIndex).replicaNodeIds().size();
    if (read.retries < replicas) {
      send(read, shardIndex);
      return;
    }
    long delayUs = Math.min(MAX_BACKOFF_US, 1000L << Math.min(6, read.retries / replicas - 1));
    long firstRequestId = read.firstRequestId;
    loop.schedule(
        () -> {
          if (!read.future.isDone() && read.firstRequestId == firstRequestId) {
            send(read, shardIndex);
            outbound.flush();
          }
        },
        delayUs * 1000);
  }

  /**
   * Asks the color's sequencer for its tail; a read of an SN above it fails with {@link
   * SnBeyondTailException}: the role had not issued the SN when it answered, after the read began,
   * so no append that completed before the read can hold it (docs/architecture.md#head-and-tail).
   * Without an answer the read goes on as before.
   */
  private void checkTail(PendingRead read) {
    long firstRequestId = read.firstRequestId;
    tails.sequencerTail(
        read.colorId,
        answer -> {
          if (!read.future.isDone()
              && read.firstRequestId == firstRequestId
              && read.sn > answer.tail()) {
            finish(read);
            read.future.completeExceptionally(
                new SnBeyondTailException(read.colorName, read.sn, answer.tail()));
          }
        },
        error -> {});
  }

  /** An ERROR carrying one of the reads' request ids. */
  void onError(long requestId, ErrorCode code, String message) {
    PendingRead read = reads.get(requestId);
    if (read == null) {
      return;
    }
    FlexLogException error = FlexLogException.fromWire(code, message);
    if (code == ErrorCode.UNKNOWN_COLOR || code == ErrorCode.UNKNOWN_SHARD) {
      onTopologyError(read, (int) (requestId - read.firstRequestId), error);
    } else {
      finish(read);
      read.future.completeExceptionally(error);
    }
  }

  /** A node does not know the read's color or shard: refetch the topology once, then retry. */
  private void onTopologyError(PendingRead read, int shardIndex, FlexLogException error) {
    if (read.refreshed) {
      retry(read, shardIndex); // the node is behind our topology: retry until the deadline
      return;
    }
    read.refreshed = true;
    finish(read);
    metadata.refresh(
        () -> {
          if (read.future.isDone()) {
            return;
          }
          if (metadata.topology().color(read.colorName).isEmpty()) {
            read.future.completeExceptionally(error);
          } else {
            start(read); // the color's shards may have changed: target them afresh
          }
        });
  }

  /**
   * The connection to {@code nodeId} failed or closed (or could not be made): every shard of a read
   * in flight that was waiting for that node asks its next replica, as on RETRY, instead of waiting
   * for the read deadline.
   */
  void onConnectionLost(int nodeId) {
    if (reads.isEmpty()) {
      return;
    }
    for (PendingRead read : reads.values().stream().distinct().toList()) {
      for (int i = 0; i < read.shards.size(); i++) {
        List<Integer> replicas = read.shards.get(i).replicaNodeIds();
        if (!read.absent[i]
            && replicas.get(read.replicaCursor[i] % replicas.size()) == nodeId
            && !read.future.isDone()) {
          retry(read, i);
        }
      }
    }
    outbound.flush();
  }

  /** Fails reads past their deadline. */
  void onTick(long nowNs) {
    if (reads.isEmpty()) {
      return;
    }
    List<PendingRead> late =
        reads.values().stream().distinct().filter(read -> nowNs - read.deadlineNs > 0).toList();
    for (PendingRead read : late) {
      finish(read);
      read.future.completeExceptionally(
          new FlexLogTimeoutException(
              "read of color '"
                  + read.colorName
                  + "' at SN "
                  + read.sn
                  + " still undecided after "
                  + readTimeoutNs / 1_000_000
                  + " ms ("
                  + read.retries
                  + " replica retries)"));
    }
  }

  /** Fails every read in flight (the client closes). */
  void failAll(FlexLogException error) {
    for (PendingRead read : new ArrayList<>(reads.values()).stream().distinct().toList()) {
      finish(read);
      read.future.completeExceptionally(error);
    }
  }

  int inFlight() {
    return (int) reads.values().stream().distinct().count();
  }

  private void finish(PendingRead read) {
    for (int i = 0; i < read.shards.size(); i++) {
      reads.remove(read.firstRequestId + i);
    }
  }
}
