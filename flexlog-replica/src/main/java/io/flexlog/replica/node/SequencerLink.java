package io.flexlog.replica.node;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.net.ClientBootstrap;
import io.flexlog.core.net.ConnectionErrors;
import io.flexlog.core.net.Transport;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.HelloDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.OrderRequestDescriptor;
import io.flexlog.core.util.Backoff;
import io.flexlog.replica.replication.OrderRequestBatch;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replica node's connection to one sequencer node: sends HELLO and order requests, delivers
 * order responses and watermarks to the engine in arrival (FIFO) order, and reconnects with backoff
 * when the connection breaks. A replica node has one link per sequencer node that hosts the color
 * of one of its shards; the link's HELLO names exactly those shards.
 *
 * <p>Topology changes: {@link #updateShards} adds shards; a connected link says HELLO again with
 * the full list. The sequencer may learn the new topology after this node does and then refuses the
 * HELLO or an order request with UNKNOWN_SHARD, or with UNKNOWN_COLOR when a failover gave it a
 * color's role that it does not know yet; the link answers such an error by saying HELLO again
 * after a delay ({@link #REHELLO_DELAY_MS} ms, doubling up to {@link #MAX_BACKOFF_MS} ms while the
 * errors go on), until the sequencer accepts.
 *
 * <p>An accepted HELLO is answered with WELCOME, naming the sequencer process's incarnation; only
 * then does the engine synchronise and re-send the unassigned order requests of the link's shards
 * (docs/architecture.md#token-sync, see {@code TokenSync}; the sequencer deduplicates re-sent
 * tokens).
 *
 * <p>Threading: runs on the engine's event loop; every method must be called on it.
 */
final class SequencerLink {
  private static final Logger LOG = LoggerFactory.getLogger(SequencerLink.class);
  private static final int CONNECT_TIMEOUT_MS = 2000;
  private static final long MIN_BACKOFF_MS = 50;
  private static final long MAX_BACKOFF_MS = 1000;
  static final long REHELLO_DELAY_MS = 50;

  private final int replicaNodeId;
  private final NodeAddress sequencer;
  private int[] shardIds;
  private final ReplicaAdapter adapter;
  private final EventLoop loop;
  private final Bootstrap bootstrap;
  private Channel channel;
  private final Backoff reconnectBackoff = Backoff.doublingMs(MIN_BACKOFF_MS, MAX_BACKOFF_MS);
  private boolean closed;
  private boolean everConnected;
  private boolean rehelloScheduled;
  private final Backoff rehelloBackoff = Backoff.doublingMs(REHELLO_DELAY_MS, MAX_BACKOFF_MS);

  SequencerLink(
      int replicaNodeId,
      NodeAddress sequencer,
      int[] shardIds,
      ReplicaAdapter adapter,
      EventLoop loop) {
    this.replicaNodeId = replicaNodeId;
    this.sequencer = sequencer;
    this.shardIds = shardIds;
    this.adapter = adapter;
    this.loop = loop;
    this.bootstrap =
        ClientBootstrap.framed(loop, CONNECT_TIMEOUT_MS, Transport.MAX_FRAME_BYTES, Handler::new);
  }

  void connect() {
    loop.execute(this::attempt);
  }

  int sequencerId() {
    return sequencer.id();
  }

  /** The shards this link speaks for, in HELLO order. */
  int[] shardIds() {
    return shardIds.clone();
  }

  /**
   * Makes the link speak for {@code shards} (a superset of its current shards, after a topology
   * change); a connected link says HELLO again at once when they changed or when {@code roleMoved}
   * (this node became the leader of a shard's role in a new epoch, also when it led it before: the
   * WELCOME starts the sync phase with it, docs/architecture.md#fencing).
   */
  void updateShards(int[] shards, boolean roleMoved) {
    if (!roleMoved && java.util.Arrays.equals(shardIds, shards)) {
      return;
    }
    shardIds = shards.clone();
    rehelloBackoff.reset();
    if (isConnected()) {
      channel.writeAndFlush(HelloDescriptor.encode(channel.alloc(), replicaNodeId, shardIds));
    }
  }

  /**
   * The sequencer no longer orders any of this node's shards (their role moved to another node in a
   * failover): the link keeps its connection but names no shard, so that a role coming back later
   * is a change that says HELLO again and re-sends the unassigned order requests.
   */
  void forgetShards() {
    shardIds = new int[0];
  }

  // The sequencer does not know one of our shards yet: it has not applied the topology we have.
  private void scheduleRehello(String reason) {
    if (rehelloScheduled || closed) {
      return;
    }
    rehelloScheduled = true;
    long delayMs = rehelloBackoff.nextDelayMs();
    LOG.info(
        "sequencer {} does not know a shard or role of replica {} yet ({}); saying HELLO again in {} ms",
        sequencer.id(),
        replicaNodeId,
        reason,
        delayMs);
    loop.schedule(
        () -> {
          rehelloScheduled = false;
          if (isConnected()) {
            // Accepted, it is answered with WELCOME, which re-sends the unassigned requests.
            channel.writeAndFlush(HelloDescriptor.encode(channel.alloc(), replicaNodeId, shardIds));
          }
        },
        delayMs,
        TimeUnit.MILLISECONDS);
  }

  boolean isConnected() {
    return channel != null && channel.isActive();
  }

  private void attempt() {
    if (closed) {
      return;
    }
    ChannelFuture future = bootstrap.connect(sequencer.host(), sequencer.port());
    future.addListener(
        f -> {
          if (!f.isSuccess()) {
            if (!closed) {
              LOG.debug("sequencer {} unreachable: {}", sequencer.hostPort(), f.cause().toString());
              scheduleReconnect();
            }
          }
        });
  }

  private void scheduleReconnect() {
    loop.schedule(this::attempt, reconnectBackoff.nextDelayMs(), TimeUnit.MILLISECONDS);
  }

  void send(OrderRequestBatch batch) {
    if (!isConnected()) {
      return;
    }
    ByteBuf buf =
        OrderRequestDescriptor.encodeHeader(
            channel.alloc(),
            batch.roleEpoch(),
            batch.colorId,
            batch.shardId,
            replicaNodeId,
            batch.count());
    for (int i = 0; i < batch.count(); i++) {
      OrderRequestDescriptor.writeToken(buf, batch.session(i), batch.sequence(i));
    }
    channel.write(buf, channel.voidPromise());
  }

  void flush() {
    if (channel != null) {
      channel.flush();
    }
  }

  void close() {
    closed = true;
    if (channel != null) {
      channel.close();
    }
  }

  private final class Handler extends ChannelInboundHandlerAdapter {
    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      channel = ctx.channel();
      reconnectBackoff.reset();
      rehelloBackoff.reset();
      LOG.info(
          "replica {} {} sequencer {} at {}",
          replicaNodeId,
          everConnected ? "reconnected to" : "connected to",
          sequencer.id(),
          sequencer.hostPort());
      everConnected = true;
      ctx.writeAndFlush(HelloDescriptor.encode(ctx.alloc(), replicaNodeId, shardIds));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (channel == ctx.channel()) {
        channel = null;
      }
      adapter.onSequencerLinkLost(sequencer.id());
      if (!closed) {
        LOG.warn("replica {} lost sequencer {}; reconnecting", replicaNodeId, sequencer.id());
        scheduleReconnect();
      }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf frame = (ByteBuf) msg;
      try {
        if (adapter.onSequencerFrame(sequencer.id(), frame)) {
          return;
        }
        if (FrameDescriptor.type(frame) == MessageType.ERROR) {
          onError(frame);
        } else {
          LOG.warn(
              "unexpected {} from sequencer {}",
              MessageType.name(FrameDescriptor.type(frame)),
              sequencer.id());
        }
      } finally {
        frame.release();
      }
    }

    private void onError(ByteBuf frame) {
      ErrorCode code = ErrorDescriptor.code(frame);
      if (code == ErrorCode.UNKNOWN_SHARD || code == ErrorCode.UNKNOWN_COLOR) {
        // The sequencer has not applied the topology that gave it the shard or the color's role
        // (a failover reaches the replica first, then the new leader): HELLO again, which re-sends
        // the unassigned order requests once it is accepted.
        scheduleRehello(ErrorDescriptor.message(frame));
      } else {
        LOG.warn(
            "sequencer {} reports {}: {}", sequencer.id(), code, ErrorDescriptor.message(frame));
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ConnectionErrors.closeOnError(ctx, cause, LOG);
    }
  }
}
