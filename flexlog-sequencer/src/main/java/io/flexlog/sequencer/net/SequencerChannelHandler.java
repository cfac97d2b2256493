package io.flexlog.sequencer.net;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.ProtocolException;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.sequencer.ordering.PeerLink;
import io.flexlog.sequencer.ordering.SequencerInbound;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Netty adapter of one inbound connection (from a replica or a child sequencer node): takes
 * validated frames from {@code FrameDecoder}, hands them to the {@link SequencerInbound} and
 * isolates failures (a broken connection is closed; no other connection notices).
 *
 * <p>One instance per connection; runs on the node's single event loop.
 */
public final class SequencerChannelHandler extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(SequencerChannelHandler.class);

  private final SequencerInbound inbound;
  private PeerLink link;
  private boolean closing;

  public SequencerChannelHandler(SequencerInbound inbound) {
    this.inbound = inbound;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    link = inbound.onConnected(new ChannelOutbound(ctx.channel()));
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf frame = (ByteBuf) msg;
    try {
      if (!closing) {
        dispatch(ctx, frame);
      }
    } finally {
      frame.release();
    }
  }

  private void dispatch(ChannelHandlerContext ctx, ByteBuf frame) {
    String problem = inbound.onFrame(link, frame);
    if (problem != null) {
      closeWithProtocolError(ctx, problem);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    inbound.onDisconnect(link);
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (closing) {
      return;
    }
    ProtocolException protocol = protocolCause(cause);
    if (protocol != null) {
      closeWithProtocolError(ctx, protocol.getMessage());
    } else if (cause instanceof IOException) {
      closing = true;
      LOG.debug("connection from {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
      ctx.close();
    } else {
      closing = true;
      LOG.warn("closing connection from {} after an unexpected error", remote(ctx), cause);
      ctx.close();
    }
  }

  // The peer broke the protocol: tell it why (best effort), then drop only this connection.
  private void closeWithProtocolError(ChannelHandlerContext ctx, String problem) {
    closing = true;
    LOG.warn("closing connection from {}: protocol violation: {}", remote(ctx), problem);
    ctx.writeAndFlush(ErrorDescriptor.encode(ctx.alloc(), 0L, ErrorCode.PROTOCOL, problem))
        .addListener(ChannelFutureListener.CLOSE);
  }

  private static ProtocolException protocolCause(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof ProtocolException p) {
        return p;
      }
    }
    return null;
  }

  private static Object remote(ChannelHandlerContext ctx) {
    return ctx.channel().remoteAddress();
  }
}
