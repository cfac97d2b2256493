package io.flexlog.client.internals;

import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.LogRecord;
import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.FlexLogTimeoutException;
import io.flexlog.core.error.RecordTooLargeException;
import io.flexlog.core.error.TrimmedException;
import io.flexlog.core.error.UnknownColorException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.core.net.ConnectionErrors;
import io.flexlog.core.net.Transport;
import io.flexlog.core.protocol.AppendAckDescriptor;
import io.flexlog.core.protocol.AppendDescriptor;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.MetadataDescriptor.Metadata;
import io.flexlog.core.protocol.ReadDescriptor;
import io.flexlog.core.protocol.ReadResponseDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.collection.LongObjectHashMap;
import io.netty.util.concurrent.ScheduledFuture;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's machinery behind {@code FlexLog}: connections, in-flight appends and reads, retries.
 *
 * <p>Threading: all state below the public methods is confined to one event loop; public methods
 * may be called from any thread and hand work to the loop. Frames written during one loop turn are
 * flushed once at its end (natural batching).
 */
public final class ClientCore implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ClientCore.class);
  private static final long READ_ID_BASE = 1L << 62;

  private final FlexLogConfig config;
  private final EventLoopGroup group;
  private final EventLoop loop;
  private final long session = new SecureRandom().nextLong();
  private final AtomicLong sequence = new AtomicLong();
  private final AtomicLong readIds = new AtomicLong(READ_ID_BASE);
  private volatile Metadata metadata;

  private final LongObjectHashMap<PendingAppend> appends = new LongObjectHashMap<>();
  private final LongObjectHashMap<PendingRead> reads = new LongObjectHashMap<>();
  private final Map<Integer, NodeConnection> connections = new HashMap<>();
  private final List<NodeConnection> dirty = new ArrayList<>();
  private final Runnable flushTask = this::flushDirty;
  private boolean flushScheduled;
  private int roundRobin;
  private final ScheduledFuture<?> timer;
  private volatile boolean closed;

  private ClientCore(FlexLogConfig config, EventLoopGroup group, Metadata metadata) {
    this.config = config;
    this.group = group;
    this.loop = group.next();
    this.metadata = metadata;
    long tickMs =
        Math.max(
            1,
            Math.min(
                100,
                Math.min(config.requestTimeout().toMillis(), config.readTimeout().toMillis())
                    / 10));
    this.timer =
        loop.scheduleAtFixedRate(this::checkDeadlines, tickMs, tickMs, TimeUnit.MILLISECONDS);
  }

  /** Fetches the topology from the bootstrap servers and connects to the replica nodes. */
  public static ClientCore connect(FlexLogConfig config) {
    EventLoopGroup group = Transport.eventLoops("flexlog-client", 1);
    try {
      Metadata metadata = MetadataFetcher.fetch(group, config);
      ClientCore core = new ClientCore(config, group, metadata);
      core.loop.execute(core::connectAll);
      return core;
    } catch (RuntimeException e) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw e;
    }
  }

  public Topology topology() {
    return metadata.topology();
  }

  public int maxRecordBytes() {
    return metadata.maxRecordBytes();
  }

  /** Fetches the topology again; for colors created after this client connected. */
  public void refreshMetadata() {
    metadata = MetadataFetcher.fetch(group, config);
  }

  /** Resolves a color name, refreshing the topology once if it is not known yet. */
  public Color color(String name) {
    Optional<Color> color = topology().color(name);
    if (color.isEmpty()) {
      refreshMetadata();
      color = topology().color(name);
    }
    return color.orElseThrow(
        () ->
            new UnknownColorException(
                "unknown color '"
                    + name
                    + "'; the cluster has "
                    + topology().colors().stream().map(Color::name).sorted().toList()));
  }

  // ---------------------------------------------------------------- appends

  /**
   * Appends a record. The caller must not modify {@code payload} until the future completes: it is
   * sent (and re-sent on retries) without a copy. Ownership of the buffer passes to the client.
   */
  public CompletableFuture<Long> append(String colorName, ByteBuf payload) {
    CompletableFuture<Long> future = new CompletableFuture<>();
    try {
      checkOpen();
      Color color = color(colorName);
      if (payload.readableBytes() > maxRecordBytes()) {
        throw new RecordTooLargeException(
            "record of "
                + payload.readableBytes()
                + " bytes exceeds the cluster's max.record.bytes="
                + maxRecordBytes());
      }
      long deadline = System.nanoTime() + config.deliveryTimeout().toNanos();
      PendingAppend append =
          new PendingAppend(
              sequence.incrementAndGet(), colorName, color.id(), payload, future, deadline);
      loop.execute(() -> startAppend(append));
    } catch (RuntimeException e) {
      payload.release();
      future.completeExceptionally(e);
    }
    return future;
  }

  private void startAppend(PendingAppend append) {
    List<Shard> shards = topology().shardsInSubtree(append.colorId);
    if (shards.isEmpty()) {
      failAppend(
          append,
          new FlexLogException("color '" + append.colorName + "' has no shard to append to"));
      return;
    }
    append.shard = shards.get(Math.floorMod(roundRobin++, shards.size()));
    appends.put(append.sequence, append);
    sendAppend(append);
  }

  private void sendAppend(PendingAppend append) {
    append.attempts++;
    append.attemptDeadlineNs = System.nanoTime() + config.requestTimeout().toNanos();
    List<Integer> replicas = append.shard.replicaNodeIds();
    for (int i = 0; i < replicas.size(); i++) {
      if ((append.ackedMask & (1 << i)) != 0) {
        continue;
      }
      NodeConnection connection = connection(replicas.get(i));
      int length = append.payload.readableBytes();
      connection.write(
          AppendDescriptor.encodeHeader(
              io.netty.buffer.PooledByteBufAllocator.DEFAULT,
              append.sequence,
              session,
              append.sequence,
              append.colorId,
              append.shard.id(),
              length));
      connection.write(append.payload.retainedDuplicate());
      markDirty(connection);
    }
  }

  private void onAck(ByteBuf frame) {
    if (AppendAckDescriptor.tokenSession(frame) != session) {
      return;
    }
    PendingAppend append = appends.get(AppendAckDescriptor.tokenSequence(frame));
    if (append == null) {
      return;
    }
    int replica = append.shard.replicaNodeIds().indexOf(AppendAckDescriptor.replicaNodeId(frame));
    if (replica < 0) {
      return;
    }
    long sn = AppendAckDescriptor.sn(frame);
    if (append.sn != 0 && append.sn != sn) {
      failAppend(
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
      appends.remove(append.sequence);
      append.payload.release();
      append.future.complete(sn);
    }
  }

  private void failAppend(PendingAppend append, FlexLogException error) {
    appends.remove(append.sequence);
    append.payload.release();
    append.future.completeExceptionally(error);
  }

  // ---------------------------------------------------------------- reads

  /** Reads the record of a color at an SN: empty for a hole. */
  public CompletableFuture<Optional<LogRecord>> read(String colorName, long sn) {
    CompletableFuture<Optional<LogRecord>> future = new CompletableFuture<>();
    try {
      checkOpen();
      Color color = color(colorName);
      List<Shard> shards = topology().shardsInSubtree(color.id());
      if (shards.isEmpty()) {
        throw new FlexLogException("color '" + colorName + "' has no shard to read from");
      }
      long first = readIds.getAndAdd(shards.size());
      long deadline = System.nanoTime() + config.readTimeout().toNanos();
      PendingRead read =
          new PendingRead(first, colorName, color.id(), sn, shards, future, deadline);
      loop.execute(() -> startRead(read));
    } catch (RuntimeException e) {
      future.completeExceptionally(e);
    }
    return future;
  }

  private void startRead(PendingRead read) {
    for (int i = 0; i < read.shards.size(); i++) {
      reads.put(read.firstRequestId + i, read);
      read.replicaCursor[i] =
          Math.floorMod(roundRobin++, read.shards.get(i).replicaNodeIds().size());
      sendRead(read, i);
    }
  }

  private void sendRead(PendingRead read, int shardIndex) {
    List<Integer> replicas = read.shards.get(shardIndex).replicaNodeIds();
    int replica = replicas.get(read.replicaCursor[shardIndex] % replicas.size());
    NodeConnection connection = connection(replica);
    connection.write(
        ReadDescriptor.encode(
            io.netty.buffer.PooledByteBufAllocator.DEFAULT,
            read.firstRequestId + shardIndex,
            read.colorId,
            read.sn));
    markDirty(connection);
  }

  private void onReadResponse(ByteBuf frame) {
    long requestId = FrameDescriptor.requestId(frame);
    PendingRead read = reads.get(requestId);
    if (read == null || read.future.isDone()) {
      return;
    }
    int shardIndex = (int) (requestId - read.firstRequestId);
    switch (ReadResponseDescriptor.status(frame)) {
      case ReadResponseDescriptor.FOUND -> {
        byte[] payload = ByteBufUtil.getBytes(ReadResponseDescriptor.payload(frame));
        finishRead(read);
        read.future.complete(Optional.of(new LogRecord(read.colorName, read.sn, payload)));
      }
      case ReadResponseDescriptor.ABSENT -> {
        read.absent[shardIndex] = true;
        if (read.allAbsent()) {
          finishRead(read);
          read.future.complete(Optional.empty());
        }
      }
      case ReadResponseDescriptor.TRIMMED -> {
        finishRead(read);
        read.future.completeExceptionally(
            new TrimmedException(
                "SN "
                    + read.sn
                    + " of color '"
                    + read.colorName
                    + "' is at or below the trim point "
                    + ReadResponseDescriptor.bound(frame)));
      }
      default -> {
        read.retries++;
        read.replicaCursor[shardIndex]++;
        int replicas = read.shards.get(shardIndex).replicaNodeIds().size();
        if (read.retries < replicas) {
          sendRead(read, shardIndex);
        } else {
          // Every replica asked once could not decide: back off, 1 ms doubling to 50 ms.
          long delayUs = Math.min(50_000, 1000L << Math.min(6, read.retries / replicas - 1));
          loop.schedule(
              () -> {
                if (!read.future.isDone()) {
                  sendRead(read, shardIndex);
                  flushDirty();
                }
              },
              delayUs,
              TimeUnit.MICROSECONDS);
        }
      }
    }
  }

  private void finishRead(PendingRead read) {
    for (int i = 0; i < read.shards.size(); i++) {
      reads.remove(read.firstRequestId + i);
    }
  }

  // ---------------------------------------------------------------- errors and deadlines

  private void onError(ByteBuf frame) {
    long requestId = FrameDescriptor.requestId(frame);
    ErrorCode code = ErrorDescriptor.code(frame);
    String message = ErrorDescriptor.message(frame);
    if (requestId >= READ_ID_BASE) {
      PendingRead read = reads.get(requestId);
      if (read != null) {
        finishRead(read);
        read.future.completeExceptionally(FlexLogException.fromWire(code, message));
      }
      return;
    }
    PendingAppend append = appends.get(requestId);
    if (append == null) {
      if (requestId == 0) {
        LOG.warn("node reports a connection error {}: {}", code, message);
      }
      return;
    }
    if (code == ErrorCode.NOT_READY) {
      return;
    }
    failAppend(append, FlexLogException.fromWire(code, message));
  }

  private void checkDeadlines() {
    long now = System.nanoTime();
    List<PendingAppend> expired = null;
    for (Iterator<PendingAppend> it = appends.values().iterator(); it.hasNext(); ) {
      PendingAppend append = it.next();
      if (now - append.deliveryDeadlineNs > 0) {
        expired = expired == null ? new ArrayList<>() : expired;
        expired.add(append);
      } else if (now - append.attemptDeadlineNs > 0) {
        sendAppend(append);
      }
    }
    if (expired != null) {
      for (PendingAppend append : expired) {
        failAppend(
            append,
            new FlexLogTimeoutException(
                "append to color '"
                    + append.colorName
                    + "' not acknowledged by every replica of shard "
                    + append.shard.id()
                    + " within "
                    + config.deliveryTimeout().toMillis()
                    + " ms after "
                    + append.attempts
                    + " attempts; it may still appear, at most once"));
      }
    }
    if (reads.isEmpty()) {
      flushDirty();
      return;
    }
    List<PendingRead> late =
        reads.values().stream()
            .distinct()
            .filter(read -> now - read.deadlineNs > 0)
            .collect(Collectors.toList());
    for (PendingRead read : late) {
      finishRead(read);
      read.future.completeExceptionally(
          new FlexLogTimeoutException(
              "read of color '"
                  + read.colorName
                  + "' at SN "
                  + read.sn
                  + " still undecided after "
                  + config.readTimeout().toMillis()
                  + " ms ("
                  + read.retries
                  + " replica retries)"));
    }
    flushDirty();
  }

  // ---------------------------------------------------------------- connections

  private void connectAll() {
    for (Shard shard : topology().shards()) {
      for (int replica : shard.replicaNodeIds()) {
        connection(replica).connect();
      }
    }
  }

  private NodeConnection connection(int nodeId) {
    NodeConnection connection = connections.get(nodeId);
    if (connection == null) {
      connection = new NodeConnection(topology().node(nodeId), loop, Handler::new);
      connections.put(nodeId, connection);
    }
    return connection;
  }

  private void markDirty(NodeConnection connection) {
    if (!dirty.contains(connection)) {
      dirty.add(connection);
    }
    if (!flushScheduled) {
      flushScheduled = true;
      loop.execute(flushTask);
    }
  }

  private void flushDirty() {
    flushScheduled = false;
    for (NodeConnection connection : dirty) {
      connection.flush();
    }
    dirty.clear();
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("this FlexLog client is closed");
    }
  }

  /** Fails what is still in flight and releases the connections. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    loop.submit(
            () -> {
              timer.cancel(false);
              FlexLogException error = new FlexLogException("the FlexLog client was closed");
              new ArrayList<>(appends.values()).forEach(a -> failAppend(a, error));
              new ArrayList<>(reads.values())
                  .stream()
                      .distinct()
                      .forEach(
                          read -> {
                            finishRead(read);
                            read.future.completeExceptionally(error);
                          });
              connections.values().forEach(NodeConnection::close);
            })
        .syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** Decodes responses on a node connection; runs on the client loop. */
  private final class Handler extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf frame = (ByteBuf) msg;
      try {
        switch (FrameDescriptor.type(frame)) {
          case MessageType.APPEND_ACK -> onAck(frame);
          case MessageType.READ_RESPONSE -> onReadResponse(frame);
          case MessageType.ERROR -> onError(frame);
          default ->
              LOG.warn(
                  "unexpected {} from {}",
                  MessageType.name(FrameDescriptor.type(frame)),
                  ctx.channel().remoteAddress());
        }
      } finally {
        frame.release();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ConnectionErrors.closeOnError(ctx, cause, LOG);
    }
  }
}
