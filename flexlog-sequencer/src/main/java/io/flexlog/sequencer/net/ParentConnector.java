package io.flexlog.sequencer.net;

import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.net.ClientBootstrap;
import io.flexlog.core.net.ConnectionErrors;
import io.flexlog.core.util.Backoff;
import io.flexlog.sequencer.ordering.OrderingService;
import io.flexlog.sequencer.ordering.PeerLink;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this node's connection to one parent sequencer node open: connects to the parent's address
 * in the current topology, hands the connection and its frames to the {@link OrderingService}, and
 * reconnects with exponential backoff (50 ms to 1 s) whenever it breaks or cannot be made. Runs on
 * the node's event loop, so the service sees its callbacks on its own thread.
 */
public final class ParentConnector {
  private static final Logger LOG = LoggerFactory.getLogger(ParentConnector.class);
  static final long MIN_BACKOFF_MS = 50;
  static final long MAX_BACKOFF_MS = 1000;
  private static final int CONNECT_TIMEOUT_MS = 2000;

  private final int nodeId;
  private final int parentNodeId;
  private final OrderingService service;
  private final EventLoop loop;
  private final Bootstrap bootstrap;
  private final Backoff backoff = Backoff.doublingMs(MIN_BACKOFF_MS, MAX_BACKOFF_MS);
  private Channel channel;
  private boolean closed;

  public ParentConnector(
      int nodeId, int parentNodeId, OrderingService service, EventLoop loop, int maxFrameBytes) {
    this.nodeId = nodeId;
    this.parentNodeId = parentNodeId;
    this.service = service;
    this.loop = loop;
    this.bootstrap = ClientBootstrap.framed(loop, CONNECT_TIMEOUT_MS, maxFrameBytes, Handler::new);
  }

  /** Starts connecting; must run on the node's event loop. */
  public void start() {
    attempt();
  }

  private void attempt() {
    if (closed) {
      return;
    }
    NodeAddress parent = service.topology().nodes().get(parentNodeId);
    if (parent == null) {
      scheduleReconnect();
      return;
    }
    bootstrap
        .connect(parent.host(), parent.port())
        .addListener(
            f -> {
              if (!f.isSuccess() && !closed) {
                LOG.debug(
                    "node {}: parent node {} at {} unreachable: {}",
                    nodeId,
                    parentNodeId,
                    parent.hostPort(),
                    f.cause().toString());
                scheduleReconnect();
              }
            });
  }

  private void scheduleReconnect() {
    loop.schedule(this::attempt, backoff.nextDelayMs(), TimeUnit.MILLISECONDS);
  }

  /** Stops reconnecting and closes the connection; runs on the node's event loop. */
  public void close() {
    closed = true;
    if (channel != null) {
      channel.close();
    }
  }

  private final class Handler extends ChannelInboundHandlerAdapter {
    private PeerLink link;

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      if (closed) {
        ctx.close();
        return;
      }
      channel = ctx.channel();
      backoff.reset();
      link = service.onParentConnected(parentNodeId, new ChannelOutbound(ctx.channel()));
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf frame = (ByteBuf) msg;
      try {
        if (link != null) {
          service.onParentFrame(link, frame);
        }
      } finally {
        frame.release();
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (channel == ctx.channel()) {
        channel = null;
      }
      if (link != null) {
        service.onParentClosed(link);
        link = null;
      }
      if (!closed) {
        LOG.warn("node {} lost its parent node {}; reconnecting", nodeId, parentNodeId);
        scheduleReconnect();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ConnectionErrors.closeOnError(ctx, cause, LOG);
    }
  }
}
