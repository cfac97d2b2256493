package io.flexlog.core.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.model.NodeAddress;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import java.io.DataInputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class QueuedConnectionTest {
  private final EventLoopGroup group = Transport.eventLoops("queued-connection-test", 1);
  private final EventLoop loop = group.next();

  @AfterEach
  void shutDown() {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private QueuedConnection connectionTo(int port, Runnable onLost) {
    NodeAddress node =
        new NodeAddress(
            7, NodeAddress.Kind.REPLICA, InetAddress.getLoopbackAddress().getHostAddress(), port);
    return new QueuedConnection(
        node, ClientBootstrap.framed(loop, 2000, 1024, ChannelInboundHandlerAdapter::new), onLost);
  }

  @Test
  void shouldWriteTheFramesQueuedWhileConnectingOnceConnected() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      QueuedConnection connection = connectionTo(server.getLocalPort(), () -> {});
      loop.submit(
              () -> {
                connection.write(Unpooled.buffer().writeInt(11));
                connection.write(Unpooled.buffer().writeInt(22));
              })
          .sync();
      try (Socket peer = server.accept()) {
        DataInputStream in = new DataInputStream(peer.getInputStream());
        assertThat(in.readInt()).isEqualTo(11);
        assertThat(in.readInt()).isEqualTo(22);
        assertThat(loop.submit(connection::isConnected).get()).isTrue();
      } finally {
        loop.submit(connection::close).sync();
      }
    }
  }

  @Test
  void shouldReleaseTheQueuedFramesAndReportTheLossWhenTheAttemptFails() throws Exception {
    int port;
    try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = closed.getLocalPort();
    }
    CountDownLatch lost = new CountDownLatch(1);
    QueuedConnection connection = connectionTo(port, lost::countDown);
    ByteBuf frame = Unpooled.buffer().writeInt(11);

    loop.submit(() -> connection.write(frame)).sync();

    assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(frame.refCnt()).isZero();
    assertThat(loop.submit(connection::isConnected).get()).isFalse();
  }
}
