package io.flexlog.client.internals;

import io.flexlog.core.net.ConnectionErrors;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Netty edge of the inbound path: passes each decoded frame of a node connection to the {@link
 * InboundDispatcher} and releases it afterwards. Runs on the client's event loop.
 */
final class InboundHandler extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(InboundHandler.class);

  private final InboundDispatcher dispatcher;

  InboundHandler(InboundDispatcher dispatcher) {
    this.dispatcher = dispatcher;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf frame = (ByteBuf) msg;
    try {
      if (!dispatcher.onFrame(frame)) {
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
