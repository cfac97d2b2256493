package io.flexlog.core.net;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/** The Netty transport every FlexLog component uses: NIO, daemon threads named after the role. */
public final class Transport {
  /** Upper bound of a frame: the largest record accepted by any configuration, plus headers. */
  public static final int MAX_FRAME_BYTES = (64 << 20) + 4096;

  private Transport() {}

  public static EventLoopGroup eventLoops(String name, int threads) {
    return new MultiThreadIoEventLoopGroup(
        threads, new DefaultThreadFactory(name, true), NioIoHandler.newFactory());
  }

  public static Class<NioServerSocketChannel> serverChannel() {
    return NioServerSocketChannel.class;
  }

  public static Class<? extends SocketChannel> clientChannel() {
    return NioSocketChannel.class;
  }
}
