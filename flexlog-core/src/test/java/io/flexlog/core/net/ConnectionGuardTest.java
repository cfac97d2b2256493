package io.flexlog.core.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import java.io.DataOutputStream;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The guard in front of a real server socket on 127.0.0.1. */
class ConnectionGuardTest {
  private static final Duration TIMEOUT = Duration.ofMillis(300);

  private final EventLoopGroup group = Transport.eventLoops("guard-test", 1);
  private final AtomicLong bytesPassed = new AtomicLong();
  private ConnectionGuard guard;
  private Channel server;

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server.close().sync();
    }
    group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).sync();
  }

  private int start(ConnectionLimits limits) throws Exception {
    guard = new ConnectionGuard("test", limits);
    server =
        new ServerBootstrap()
            .group(group, group)
            .channel(Transport.serverChannel())
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline()
                        .addLast(
                            guard.newHandler(),
                            new ChannelInboundHandlerAdapter() {
                              @Override
                              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                bytesPassed.addAndGet(((ByteBuf) msg).readableBytes());
                                ((ByteBuf) msg).release();
                              }
                            });
                  }
                })
            .bind(InetAddress.getLoopbackAddress(), 0)
            .sync()
            .channel();
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  private static ConnectionLimits limits(Duration idle, Duration frame, int maxFrame, int max) {
    return new ConnectionLimits(idle, frame, maxFrame, max);
  }

  private static Socket connect(int port) throws Exception {
    Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
    socket.setSoTimeout(5_000);
    return socket;
  }

  /** Waits until the server closes the socket; returns how long that took. */
  private static Duration awaitClosed(Socket socket) throws Exception {
    long start = System.nanoTime();
    InputStream in = socket.getInputStream();
    try {
      assertThat(in.read()).isEqualTo(-1);
    } catch (java.net.SocketException reset) {
      // closed with unread data: a reset is a close too
    }
    return Duration.ofNanos(System.nanoTime() - start);
  }

  private static void assertOpenFor(Socket socket, Duration duration) throws Exception {
    socket.setSoTimeout((int) duration.toMillis());
    try {
      int read = socket.getInputStream().read();
      throw new AssertionError("expected the connection to stay open, read " + read);
    } catch (SocketTimeoutException expected) {
      socket.setSoTimeout(5_000);
    }
  }

  @Test
  void shouldPassWholeFramesWithinTheBoundAndCloseOnAnAnnouncedFrameAboveIt() throws Exception {
    int port = start(limits(Duration.ofSeconds(30), Duration.ofSeconds(30), 1024, 100));
    try (Socket socket = connect(port)) {
      DataOutputStream out = new DataOutputStream(socket.getOutputStream());
      out.writeInt(1020); // a whole frame of exactly 1024 bytes
      out.write(new byte[1020]);
      out.writeInt(1021); // one byte too many: refused before its body arrives
      out.flush();
      awaitClosed(socket);
    }
    assertThat(bytesPassed.get()).isEqualTo(1024);
    awaitOpenConnections(0); // the server side sees the close a moment after the client
  }

  private void awaitOpenConnections(int count) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (guard.openConnections() != count && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(guard.openConnections()).isEqualTo(count);
  }

  @Test
  void shouldCloseAConnectionWhoseFrameStallsHalfwayAfterTheFrameTimeout() throws Exception {
    int port = start(limits(Duration.ofSeconds(30), TIMEOUT, 1 << 20, 100));
    try (Socket socket = connect(port)) {
      DataOutputStream out = new DataOutputStream(socket.getOutputStream());
      out.writeInt(100);
      out.write(new byte[10]);
      out.flush();
      Duration closedAfter = awaitClosed(socket);
      assertThat(closedAfter).isGreaterThanOrEqualTo(TIMEOUT.minusMillis(50));
      assertThat(closedAfter).isLessThan(Duration.ofSeconds(3));
    }
  }

  @Test
  void shouldCloseAnIdleConnectionButNotOneThatKeepsSendingWholeFrames() throws Exception {
    Duration idleTimeout = Duration.ofMillis(800); // well above a loaded machine's hiccups
    int port = start(limits(idleTimeout, Duration.ofSeconds(30), 1 << 20, 100));
    try (Socket idle = connect(port);
        Socket busy = connect(port)) {
      DataOutputStream out = new DataOutputStream(busy.getOutputStream());
      long start = System.nanoTime();
      while (System.nanoTime() - start < idleTimeout.multipliedBy(3).toNanos()) {
        out.writeInt(12);
        out.write(new byte[12]);
        out.flush();
        Thread.sleep(50);
      }
      awaitClosed(idle);
      assertOpenFor(busy, Duration.ofMillis(100));
    }
  }

  @Test
  void shouldRefuseConnectionsAboveTheLimitAndAcceptAgainOnceOneCloses() throws Exception {
    int port = start(limits(Duration.ofSeconds(30), Duration.ofSeconds(30), 1 << 20, 2));
    try (Socket first = connect(port);
        Socket second = connect(port)) {
      assertOpenFor(second, Duration.ofMillis(100));
      try (Socket third = connect(port)) {
        awaitClosed(third);
      }
      first.close();
      awaitOpenConnections(1);
      try (Socket fourth = connect(port)) {
        assertOpenFor(fourth, Duration.ofMillis(200));
      }
    }
  }
}
