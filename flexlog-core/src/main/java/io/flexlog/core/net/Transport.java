package io.flexlog.core.net;

import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/** The Netty transport every FlexLog component uses: NIO, daemon threads named after the role. */
public final class Transport {
  /** Upper bound of a frame: the largest record accepted by any configuration, plus headers. */
  public static final int MAX_FRAME_BYTES = (64 << 20) + 4096;

  /**
   * The most one socket read takes in: several batch frames when that much has arrived, so that few
   * frames straddle two reads (docs/architecture.md#frame-decoding). Netty's default stops at 64
   * KiB, below one batch frame. At most Netty's largest pooled buffer.
   */
  public static final int MAX_READ_BYTES = 512 << 10;

  private Transport() {}

  /** Sizes socket reads from what the last reads brought, between 64 bytes and MAX_READ_BYTES. */
  public static RecvByteBufAllocator readSizes() {
    return new AdaptiveRecvByteBufAllocator(64, 2048, MAX_READ_BYTES);
  }

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
