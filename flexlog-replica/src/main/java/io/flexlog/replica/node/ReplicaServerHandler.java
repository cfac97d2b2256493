package io.flexlog.replica.node;

import io.flexlog.core.net.ConnectionErrors;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Netty end of one accepted connection: hands each frame, the writability and the close of the
 * channel to the {@link ReplicaAdapter} as its one {@link ChannelConnection}. Runs on the engine's
 * event loop, so it calls in directly. Owns and releases each frame.
 */
final class ReplicaServerHandler extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaServerHandler.class);

  private final ReplicaAdapter adapter;
  private final ChannelConnection connection;

  ReplicaServerHandler(ReplicaAdapter adapter, Channel channel) {
    this.adapter = adapter;
    this.connection = new ChannelConnection(channel);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf frame = (ByteBuf) msg;
    try {
      adapter.onClientFrame(connection, frame);
    } finally {
      frame.release();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (ctx.channel().isWritable()) {
      adapter.onClientWritable(connection);
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    adapter.onClientClosed(connection);
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ConnectionErrors.closeOnError(ctx, cause, LOG);
  }
}
