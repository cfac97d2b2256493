package io.flexlog.core.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.protocol.FrameDecoder;
import io.flexlog.core.protocol.WatermarkDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ClientBootstrapTest {
  private final EventLoopGroup group = Transport.eventLoops("client-bootstrap-test", 1);

  @AfterEach
  void shutDown() {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @Test
  void shouldConnectWithNoDelayAndDeliverWholeFramesToTheHandler() throws Exception {
    BlockingQueue<Integer> frameLengths = new ArrayBlockingQueue<>(4);
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Channel channel =
          ClientBootstrap.framed(group, 2000, 1024, () -> new Recorder(frameLengths))
              .connect(server.getInetAddress(), server.getLocalPort())
              .sync()
              .channel();
      try (Socket peer = server.accept()) {
        assertThat(channel.config().getOption(ChannelOption.TCP_NODELAY)).isTrue();
        assertThat(channel.config().getOption(ChannelOption.CONNECT_TIMEOUT_MILLIS))
            .isEqualTo(2000);
        assertThat(channel.pipeline().first()).isInstanceOf(FrameDecoder.class);

        ByteBuf frame = WatermarkDescriptor.encode(channel.alloc(), 3, 99);
        byte[] bytes = new byte[frame.readableBytes()];
        frame.readBytes(bytes).release();
        OutputStream out = peer.getOutputStream();
        out.write(bytes, 0, 5);
        out.flush();
        Thread.sleep(50);
        out.write(bytes, 5, bytes.length - 5);
        out.flush();

        assertThat(frameLengths.poll(5, TimeUnit.SECONDS)).isEqualTo(bytes.length);
      } finally {
        channel.close().sync();
      }
    }
  }

  private static final class Recorder extends ChannelInboundHandlerAdapter {
    private final BlockingQueue<Integer> frameLengths;

    Recorder(BlockingQueue<Integer> frameLengths) {
      this.frameLengths = frameLengths;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf frame = (ByteBuf) msg;
      frameLengths.add(frame.readableBytes());
      frame.release();
    }
  }
}
