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
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
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

  @Test
  void shouldTellTheListenerOnceTheFrameIsWrittenNotBefore() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      QueuedConnection connection = connectionTo(server.getLocalPort(), () -> {});
      List<Boolean> outcomes = new CopyOnWriteArrayList<>();
      loop.submit(() -> connection.write(Unpooled.buffer().writeInt(11), outcomes::add)).sync();
      try (Socket peer = server.accept()) {
        DataInputStream in = new DataInputStream(peer.getInputStream());
        assertThat(in.readInt()).isEqualTo(11);
        awaitSize(outcomes, 1);
        assertThat(outcomes).containsExactly(true);

        // connected now: the frame waits for the flush, and so does its listener
        loop.submit(() -> connection.write(Unpooled.buffer().writeInt(22), outcomes::add)).sync();
        loop.submit(() -> {}).sync();
        assertThat(outcomes).containsExactly(true);
        loop.submit(connection::flush).sync();
        assertThat(in.readInt()).isEqualTo(22);
        awaitSize(outcomes, 2);
        assertThat(outcomes).containsExactly(true, true);
      } finally {
        loop.submit(connection::close).sync();
      }
    }
  }

  @Test
  void shouldTellTheListenersOfDroppedFramesThatTheyWereNotWritten() throws Exception {
    int port;
    try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = closed.getLocalPort();
    }
    QueuedConnection connection = connectionTo(port, () -> {});
    List<Boolean> outcomes = new CopyOnWriteArrayList<>();
    ByteBuf frame = Unpooled.buffer().writeInt(11);

    loop.submit(() -> connection.write(frame, outcomes::add)).sync();
    awaitSize(outcomes, 1);
    assertThat(outcomes).containsExactly(false);
    assertThat(frame.refCnt()).isZero();

    // every frame queued while the next attempt fails, and the one over the queue's bound
    List<Boolean> over = new CopyOnWriteArrayList<>();
    loop.submit(
            () -> {
              for (int i = 0; i <= QueuedConnection.MAX_QUEUED; i++) {
                connection.write(Unpooled.buffer().writeInt(i), over::add);
              }
            })
        .sync();
    awaitSize(over, QueuedConnection.MAX_QUEUED + 1);
    assertThat(over).containsOnly(false);

    // a closed connection drops what is written to it
    List<Boolean> afterClose = new CopyOnWriteArrayList<>();
    loop.submit(
            () -> {
              connection.close();
              connection.write(Unpooled.buffer().writeInt(1), afterClose::add);
            })
        .sync();
    assertThat(afterClose).containsExactly(false);
  }

  private static void awaitSize(List<Boolean> outcomes, int size) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (outcomes.size() < size && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(outcomes).hasSize(size);
  }
}
