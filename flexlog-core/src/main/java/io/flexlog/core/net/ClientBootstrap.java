package io.flexlog.core.net;

import io.flexlog.core.protocol.FrameDecoder;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import java.util.function.Supplier;

/**
 * The one way a FlexLog component opens a connection to another node: a {@link Bootstrap} on the
 * {@link Transport} client channel with {@code TCP_NODELAY} (requests are small and latency-bound),
 * a connect timeout, and a pipeline of a {@link FrameDecoder} followed by the caller's handler.
 */
public final class ClientBootstrap {
  private ClientBootstrap() {}

  /**
   * A bootstrap whose channels run on {@code group} (an event loop group, or one event loop so that
   * the caller's handler shares its thread).
   *
   * @param connectTimeoutMs how long a connect may take before its future fails
   * @param maxFrameBytes the largest frame the decoder accepts; larger ones close the connection
   * @param handlers called once per channel for the handler placed after the decoder, which
   *     receives each frame as a {@code ByteBuf} it must release
   */
  public static Bootstrap framed(
      EventLoopGroup group,
      int connectTimeoutMs,
      int maxFrameBytes,
      Supplier<? extends ChannelHandler> handlers) {
    return new Bootstrap()
        .group(group)
        .channel(Transport.clientChannel())
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMs)
        .option(ChannelOption.RCVBUF_ALLOCATOR, Transport.readSizes())
        .handler(
            new ChannelInitializer<SocketChannel>() {
              @Override
              protected void initChannel(SocketChannel ch) {
                ch.pipeline().addLast(new FrameDecoder(maxFrameBytes), handlers.get());
              }
            });
  }
}
