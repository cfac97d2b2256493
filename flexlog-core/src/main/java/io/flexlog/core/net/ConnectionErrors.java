package io.flexlog.core.net;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.error.ProtocolException;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderException;
import java.io.IOException;
import org.slf4j.Logger;

/**
 * How every FlexLog node ends a connection that failed: a protocol error is answered with an ERROR
 * frame naming the problem and the connection is closed; any other failure closes it too. Only that
 * connection is affected.
 */
public final class ConnectionErrors {
  private ConnectionErrors() {}

  public static void closeOnError(ChannelHandlerContext ctx, Throwable cause, Logger log) {
    ProtocolException protocol = protocolCause(cause);
    if (protocol != null) {
      log.warn(
          "protocol error from {}: {}; closing the connection",
          ctx.channel().remoteAddress(),
          protocol.getMessage());
      if (ctx.channel().isActive()) {
        ctx.writeAndFlush(
                ErrorDescriptor.encode(ctx.alloc(), 0L, ErrorCode.PROTOCOL, protocol.getMessage()))
            .addListener(ChannelFutureListener.CLOSE);
      }
      return;
    }
    if (cause instanceof IOException) {
      log.debug("connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
    } else {
      log.warn("closing connection {} after an error", ctx.channel().remoteAddress(), cause);
    }
    ctx.close();
  }

  /** The protocol error behind {@code cause}, or null if it is something else. */
  public static ProtocolException protocolCause(Throwable cause) {
    if (cause instanceof ProtocolException p) {
      return p;
    }
    if (cause instanceof DecoderException && cause.getCause() instanceof ProtocolException p) {
      return p;
    }
    return null;
  }
}
