package io.flexlog.client.internals;

import io.flexlog.client.LogRecord;
import io.flexlog.client.RecordStream;
import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.SubscribeProgressDescriptor;
import io.flexlog.core.protocol.SubscribeRecordsDescriptor;
import io.flexlog.core.protocol.TopologyMarkDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client subscription to a color (docs/architecture.md#subscribe): one {@link ShardStream} per
 * shard in the color's subtree, merged by a {@link SubscriptionMerger}, handed to the application
 * through a queue.
 *
 * <p>Flow control ({@link SubscriptionCredits}): each shard gets a window of {@code windowBytes}.
 * The client grants a replica credit for the part of the window not taken by that shard's records
 * that it holds (buffered for the merge, or released and not yet consumed by the application); a
 * record is consumed when the application takes it from the queue. So memory per subscription is
 * bounded by the windows, and the application's pace sets the replicas' pace.
 *
 * <p>Topology changes: a join mark of a topology newer than the subscription's holds the merge and
 * makes the subscription open streams on the shards that joined; see {@link JoinMarks}.
 *
 * <p>Liveness: replicas send a heartbeat (a SUBSCRIBE_PROGRESS repeating the progress) on a
 * subscription that has been idle for their heartbeat interval. A stream that hears nothing for
 * {@code livenessTimeoutNs} is treated like a lost connection: the client unsubscribes from that
 * replica and resumes the shard on the next one from {@link SubscriptionMerger#resumeSn}, so
 * nothing is lost or repeated.
 *
 * <p>Threading: the stream and merge state is confined to the client's event loop (methods named
 * {@code on...} and {@link #start}); the queue is shared with the application's thread under a
 * lock; consumption reaches the loop as a task.
 */
final class ClientSubscription implements RecordStream, JoinMarks.Owner {
  private static final Logger LOG = LoggerFactory.getLogger(ClientSubscription.class);

  /** How soon a subscription asks again for a topology that is behind a join mark. */
  static final long MARK_RETRY_NS = 50_000_000L;

  private final String colorName;
  private final int colorId;
  private final long fromSn;
  private final long openTimeoutNs;
  private final long livenessTimeoutNs;
  private final int firstReplica;
  private final boolean followSubtree;
  private final SubscriptionContext ctx;
  private final Executor loop;
  private final Runnable grantTask = this::onConsumed;

  // Loop-confined.
  private final SubscriptionMerger merger;
  private final JoinMarks marks;
  private ShardStream[] streams;
  private boolean stopped;
  private long silentStreams;

  /** The topology version the shard set comes from. */
  private long topologyVersion;

  /** Shared with the application's thread. */
  private final SubscriptionQueue queue;

  // Loop-confined.
  private final SubscriptionCredits credits;
  private final StreamErrors errors;
  private final RecordEntries entries = new RecordEntries();

  /**
   * @param livenessTimeoutNs how long an open stream may stay silent before it moves to another
   *     replica
   * @param firstReplica where each shard starts looking for a replica (spreads subscribers)
   * @param topologyVersion the version of the topology {@code shards} come from
   */
  ClientSubscription(
      Color color,
      List<Shard> shards,
      long topologyVersion,
      long fromSn,
      long windowBytes,
      long openTimeoutNs,
      long livenessTimeoutNs,
      int firstReplica,
      SubscriptionContext ctx,
      Executor loop) {
    this(
        color,
        shards,
        topologyVersion,
        fromSn,
        windowBytes,
        openTimeoutNs,
        livenessTimeoutNs,
        firstReplica,
        true,
        ctx,
        loop);
  }

  /**
   * @param followSubtree open streams on shards that join the color's subtree (a whole-color
   *     subscription); false keeps exactly {@code shards} (a one-shard subscription)
   */
  ClientSubscription(
      Color color,
      List<Shard> shards,
      long topologyVersion,
      long fromSn,
      long windowBytes,
      long openTimeoutNs,
      long livenessTimeoutNs,
      int firstReplica,
      boolean followSubtree,
      SubscriptionContext ctx,
      Executor loop) {
    this.followSubtree = followSubtree;
    this.colorName = color.name();
    this.colorId = color.id();
    this.fromSn = fromSn;
    this.openTimeoutNs = openTimeoutNs;
    this.livenessTimeoutNs = livenessTimeoutNs;
    this.firstReplica = firstReplica;
    this.topologyVersion = topologyVersion;
    this.ctx = ctx;
    this.loop = loop;
    this.merger = new SubscriptionMerger(shards.size(), fromSn);
    this.marks = new JoinMarks(colorName, colorId, merger, ctx, this);
    this.streams = new ShardStream[shards.size()];
    for (int i = 0; i < streams.length; i++) {
      streams[i] = new ShardStream(this, i, shards.get(i), firstReplica + i);
    }
    this.queue = new SubscriptionQueue(shards.size(), fromSn, windowBytes, loop, grantTask);
    this.credits = new SubscriptionCredits(shards.size(), windowBytes, queue, ctx);
    this.errors = new StreamErrors(this, colorName, colorId, ctx);
  }

  // ------------------------------------------------------------------ loop side

  /** Opens every shard's stream. */
  void start() {
    for (ShardStream stream : streams) {
      open(stream);
    }
  }

  private void open(ShardStream stream) {
    long credit = credits.openingCredit(stream.index);
    long resumeSn = merger.resumeSn(stream.index);
    // Only the subscriber's own start may be refused as trimmed; a resumption (or a start from 0)
    // continues after whatever was trimmed meanwhile.
    boolean refuseTrimmed = fromSn > 0 && resumeSn == fromSn;
    stream.open(ctx, colorId, resumeSn, refuseTrimmed, credit, openTimeoutNs);
    LOG.debug(
        "subscription to '{}': opened {} from SN {} with {} bytes of credit",
        colorName,
        stream,
        merger.resumeSn(stream.index),
        credit);
    credits.opened(credit);
  }

  /**
   * A streamed record; one that does not decode (malformed, or its codec's library is missing) is
   * delivered with its stored bytes as the payload, so that the subscription does not stall on it.
   */
  private LogRecord decode(long sn, ByteBuf frame, int at, int length) {
    try {
      return RecordCodec.read(colorName, sn, frame, at, length);
    } catch (FlexLogException e) {
      LOG.warn("subscription to '{}': {}; delivering its stored bytes", colorName, e.getMessage());
      return new LogRecord(colorName, sn, ByteBufUtil.getBytes(frame, at, length));
    }
  }

  /** SUBSCRIBE_RECORDS for one of this subscription's streams. */
  void onRecords(ShardStream stream, ByteBuf frame) {
    if (stopped || !stream.isStreaming()) {
      return;
    }
    stream.lastHeardNs = ctx.nanoTime();
    entries.load(frame);
    int at = SubscribeRecordsDescriptor.payloadsStart(frame);
    for (int i = 0; i < entries.count(); i++) {
      long sn = entries.sn(i);
      int length = entries.length(i);
      LogRecord record = decode(sn, frame, at, length);
      at += length;
      // The replica counts credit in stored bytes; what the client holds is counted in the
      // decoded value's bytes, the unit in which the queue reports consumption (a format-1 record
      // decodes to fewer or, compressed, more bytes than it stores).
      stream.received += SubscribeRecordsDescriptor.recordCost(length);
      long cost = SubscribeRecordsDescriptor.recordCost(record.payload().length);
      if (!merger.onRecord(stream.index, record)) {
        // Nothing it sent beyond what was released can be trusted: resume from there elsewhere.
        merger.rewind(stream.index, credits);
        LOG.warn(
            "subscription to '{}': {} sent SN {} out of order; resuming the shard after SN {} at"
                + " another replica",
            colorName,
            stream,
            sn,
            merger.lastReleased());
        failover(stream, true);
        return;
      }
      credits.received(stream.index, cost);
    }
    progress(stream, SubscribeRecordsDescriptor.progress(frame));
  }

  /** TOPOLOGY_MARK for one of this subscription's streams. */
  void onMark(ShardStream stream, ByteBuf frame) {
    if (stopped || !stream.isStreaming()) {
      return;
    }
    stream.lastHeardNs = ctx.nanoTime();
    stream.onAnswer();
    marks.onMark(
        TopologyMarkDescriptor.topologyVersion(frame), TopologyMarkDescriptor.markSn(frame));
  }

  /** Releases what the merge may release, to the queue in one batch. */
  private void drain() {
    merger.drain(credits);
    credits.offerReleased();
  }

  /** Lifts or moves the merge's hold after the marks changed: releases what may go. */
  @Override
  public void releaseHeld() {
    drain();
    credits.grant(streams);
  }

  /** Opens a stream from {@code startSn} on every shard of the subtree the subscription lacks. */
  @Override
  public void joinShards(Topology topology, long startSn) {
    topologyVersion = Math.max(topologyVersion, topology.version());
    if (!followSubtree) {
      return; // a one-shard subscription: the joined shards belong to other readers
    }
    if (merger.lastReleased() >= startSn) {
      LOG.warn(
          "subscription to '{}': released SN {} before the join mark {} reached it; records of"
              + " the new shards below SN {} are not delivered",
          colorName,
          merger.lastReleased(),
          startSn,
          merger.lastReleased() + 1);
    }
    List<Shard> subtree = new ArrayList<>(topology.shardsInSubtree(colorId));
    subtree.sort(Comparator.comparingInt(Shard::id));
    for (Shard shard : subtree) {
      if (hasStreamFor(shard.id())) {
        continue;
      }
      int index = merger.addShard(Math.max(startSn, merger.lastReleased() + 1));
      ShardStream stream = new ShardStream(this, index, shard, firstReplica + index);
      streams = Arrays.copyOf(streams, index + 1);
      streams[index] = stream;
      credits.addShard();
      queue.addShard();
      LOG.info(
          "subscription to '{}': shard {} joined at topology version {}",
          colorName,
          shard.id(),
          topology.version());
      open(stream);
    }
  }

  private boolean hasStreamFor(int shardId) {
    for (ShardStream stream : streams) {
      if (stream.shard.id() == shardId) {
        return true;
      }
    }
    return false;
  }

  /** The topology version of the subscription's shard set; loop-confined. */
  @Override
  public long topologyVersion() {
    return topologyVersion;
  }

  int streamCount() {
    return streams.length;
  }

  /** SUBSCRIBE_PROGRESS for one of this subscription's streams. */
  void onProgress(ShardStream stream, ByteBuf frame) {
    if (!stopped && stream.isStreaming()) {
      stream.lastHeardNs = ctx.nanoTime();
      stream.progressFrames++;
      progress(stream, SubscribeProgressDescriptor.progress(frame));
    }
  }

  private void progress(ShardStream stream, long progress) {
    stream.onAnswer();
    merger.onProgress(stream.index, progress);
    drain();
    credits.grant(streams);
  }

  /** An ERROR frame carrying one of this subscription's stream ids. */
  void onError(ShardStream stream, ErrorCode code, String message) {
    if (stopped || !stream.isStreaming()) {
      return;
    }
    errors.onError(stream, code, message);
  }

  /** Leaves the stream's replica; reopens at the next one now unless it must back off. */
  void failover(ShardStream stream, boolean unsubscribe) {
    stream.fail(ctx, unsubscribe);
    if (ctx.nanoTime() - stream.retryAtNs >= 0) {
      open(stream);
    }
  }

  /** The connection to a node broke: streams from it fail over. */
  void onConnectionLost(int nodeId) {
    if (stopped) {
      return;
    }
    for (ShardStream stream : streams) {
      if (stream.isStreaming() && stream.nodeId == nodeId) {
        LOG.debug("subscription to '{}': lost {}", colorName, stream);
        failover(stream, false);
      }
    }
  }

  /**
   * Periodic: opens streams whose retry time came, fails those that never got an answer and those
   * whose replica fell silent.
   */
  void onTick(long nowNs) {
    if (stopped) {
      return;
    }
    marks.onTick(nowNs);
    for (ShardStream stream : streams) {
      if (stream.state == ShardStream.State.IDLE && nowNs - stream.retryAtNs >= 0) {
        open(stream);
      } else if (stream.state == ShardStream.State.OPENING && nowNs - stream.deadlineNs > 0) {
        LOG.debug("subscription to '{}': no answer from {}", colorName, stream);
        failover(stream, true);
      } else if (stream.isSilent(nowNs, livenessTimeoutNs)) {
        silentStreams++;
        LOG.warn(
            "subscription to '{}': {} sent nothing, not even a heartbeat, for {} ms; resuming"
                + " from SN {} at another replica",
            colorName,
            stream,
            (nowNs - stream.lastHeardNs) / 1_000_000,
            merger.resumeSn(stream.index));
        failover(stream, true);
      }
    }
  }

  /**
   * The SUBSCRIBE_PROGRESS frames heard so far per shard, in merge order, read on the client's
   * loop; for tests and diagnostics. A replica sends one after the records before it, and an idle
   * subscription gets one every heartbeat interval, so a count that grew after a record was taken
   * shows the replica was heard from after that record.
   */
  CompletableFuture<long[]> progressFramesHeard() {
    CompletableFuture<long[]> heard = new CompletableFuture<>();
    loop.execute(
        () -> {
          long[] counts = new long[streams.length];
          for (int i = 0; i < counts.length; i++) {
            counts[i] = streams[i].progressFrames;
          }
          heard.complete(counts);
        });
    return heard;
  }

  /** How many times a stream was left because its replica fell silent; loop-confined. */
  long silentStreams() {
    return silentStreams;
  }

  /** Ends the subscription with an error the application sees. */
  @Override
  public void fail(FlexLogException error) {
    queue.fail(error);
    stop();
  }

  /** Closes every stream; nothing more is delivered to the queue. */
  void stop() {
    if (!stopped) {
      stopped = true;
      for (ShardStream stream : streams) {
        stream.close(ctx);
      }
    }
  }

  @Override
  public boolean isStopped() {
    return stopped;
  }

  private void onConsumed() {
    if (!stopped) {
      credits.grant(streams);
    } else {
      credits.absorbConsumed();
    }
  }

  // ------------------------------------------------------------------ the application's side

  /**
   * Takes the next record, waiting up to {@code timeoutNs} (forever if negative).
   *
   * @return null on timeout or once closed
   */
  LogRecord take(long timeoutNs) throws InterruptedException {
    return queue.take(timeoutNs);
  }

  /** See {@link SubscriptionQueue#onAvailable}. */
  void onAvailable(Runnable listener) {
    queue.onAvailable(listener);
  }

  // ------------------------------------------------------------------ RecordStream

  @Override
  public String color() {
    return colorName;
  }

  @Override
  public long lastSn() {
    return queue.lastSn();
  }

  @Override
  public boolean isClosed() {
    return queue.isClosed();
  }

  @Override
  public LogRecord poll(Duration timeout) {
    return queue.poll(timeout, colorName);
  }

  @Override
  public int drainTo(java.util.function.Consumer<LogRecord> sink, int max) {
    if (queue.isClosed()) {
      throw new IllegalStateException("the subscription to '" + colorName + "' is closed");
    }
    return queue.drainTo(sink, max);
  }

  @Override
  public Iterator<LogRecord> iterator() {
    return queue.iterator(colorName);
  }

  @Override
  public void close() {
    if (queue.close()) {
      loop.execute(this::stop);
    }
  }

  @Override
  public String toString() {
    return "subscription to '" + colorName + "' from SN " + fromSn;
  }
}
