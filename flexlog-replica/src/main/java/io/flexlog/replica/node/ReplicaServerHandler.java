package io.flexlog.replica.node;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.net.ConnectionErrors;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.replica.replication.ReplicationEngine;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes what clients send to a replica and hands it to the {@link ReplicationEngine}; runs on the
 * engine's event loop, so it calls the engine directly. Owns and releases each frame.
 */
final class ReplicaServerHandler extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaServerHandler.class);

  private final ReplicationEngine engine;

  ReplicaServerHandler(ReplicationEngine engine) {
    this.engine = engine;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf frame = (ByteBuf) msg;
    try {
      switch (FrameDescriptor.type(frame)) {
        case MessageType.APPEND -> engine.onAppend(ctx.channel(), frame);
        case MessageType.READ -> engine.onRead(ctx.channel(), frame);
        case MessageType.TRIM -> engine.onTrim(ctx.channel(), frame);
        case MessageType.METADATA_REQUEST -> engine.onMetadataRequest(ctx.channel(), frame);
        case MessageType.SUBSCRIBE -> engine.onSubscribe(ctx.channel(), frame);
        case MessageType.SUBSCRIBE_CREDIT -> engine.onSubscribeCredit(ctx.channel(), frame);
        case MessageType.UNSUBSCRIBE -> engine.onUnsubscribe(ctx.channel(), frame);
        case MessageType.TOKEN_SYNC -> engine.onTokenSync(ctx.channel(), frame);
        case MessageType.STAGE, MessageType.COMMIT_GROUP ->
            engine.onAtomicFrame(ctx.channel(), frame);
        default ->
            ctx.writeAndFlush(
                ErrorDescriptor.encode(
                    ctx.alloc(),
                    FrameDescriptor.requestId(frame),
                    ErrorCode.INVALID_ARGUMENT,
                    "a replica does not serve "
                        + MessageType.name(FrameDescriptor.type(frame))
                        + " frames"));
      }
    } finally {
      frame.release();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (ctx.channel().isWritable()) {
      engine.onChannelWritable(ctx.channel());
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    engine.onChannelInactive(ctx.channel());
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ConnectionErrors.closeOnError(ctx, cause, LOG);
  }
}
