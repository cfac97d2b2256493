package io.flexlog.core.net;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The guard in front of a real server socket on 127.0.0.1, and its log lines (captured from its
 * logback logger): each close is logged once, naming the peer's address and the setting.
 */
class ConnectionGuardTest {
  private static final Duration TIMEOUT = Duration.ofMillis(300);
  private static final Pattern MORE_REFUSED = Pattern.compile("; (\\d+) more refused since");

  private final EventLoopGroup group = Transport.eventLoops("guard-test", 1);
  private final AtomicLong bytesPassed = new AtomicLong();
  private final ListAppender<ILoggingEvent> guardLog = new ListAppender<>();
  private ConnectionGuard guard;
  private Channel server;

  @BeforeEach
  void captureGuardLog() {
    guardLog.start();
    ((Logger) LoggerFactory.getLogger(ConnectionGuard.class)).addAppender(guardLog);
  }

  @AfterEach
  void stop() throws Exception {
    ((Logger) LoggerFactory.getLogger(ConnectionGuard.class)).detachAppender(guardLog);
    if (server != null) {
      server.close().sync();
    }
    group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).sync();
  }

  /** The guard's WARN lines so far. */
  private List<String> guardLines() {
    synchronized (guardLog) {
      return guardLog.list.stream()
          .filter(e -> e.getLevel() == Level.WARN)
          .map(ILoggingEvent::getFormattedMessage)
          .toList();
    }
  }

  /** The guard's lines that name the peer at the other end of {@code socket}. */
  private List<String> linesAbout(Socket socket) {
    String peer = "127.0.0.1:" + socket.getLocalPort() + ":";
    return guardLines().stream().filter(line -> line.contains(peer)).toList();
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
  void shouldLogEachCloseOnceWithThePeersAddressAndTheSettingThatClosedIt() throws Exception {
    Duration idleTimeout = Duration.ofMillis(800);
    int port = start(limits(idleTimeout, TIMEOUT, 1024, 100));
    try (Socket oversized = connect(port);
        Socket stalled = connect(port);
        Socket idle = connect(port)) {
      DataOutputStream out = new DataOutputStream(oversized.getOutputStream());
      out.writeInt(5000); // refused at once; what follows must not be read as more frames
      out.writeInt(6000);
      out.write(new byte[3000]);
      out.flush();
      DataOutputStream half = new DataOutputStream(stalled.getOutputStream());
      half.writeInt(100);
      half.write(new byte[10]);
      half.flush();

      awaitClosed(oversized);
      awaitClosed(stalled);
      awaitClosed(idle);
      awaitOpenConnections(0);
      Thread.sleep(idleTimeout.toMillis()); // several more timer checks: no second line may come

      assertThat(linesAbout(oversized))
          .singleElement()
          .asString()
          .startsWith("test: closing connection from /127.0.0.1:" + oversized.getLocalPort() + ":")
          .contains("a frame of 5004 bytes announced, above max-frame-bytes = 1024");
      assertThat(linesAbout(stalled))
          .singleElement()
          .asString()
          .startsWith("test: closing connection from /127.0.0.1:" + stalled.getLocalPort() + ":")
          .contains("is still incomplete (frame-timeout-ms = 300)");
      assertThat(linesAbout(idle))
          .singleElement()
          .asString()
          .startsWith("test: closing connection from /127.0.0.1:" + idle.getLocalPort() + ":")
          .contains("(idle-timeout-ms = 800)");
      assertThat(guardLines()).hasSize(3);
    }
  }

  @Test
  void shouldLogARefusalAtTheConnectionLimitOnceAndCountTheOnesItDidNotLog() throws Exception {
    int port = start(limits(Duration.ofSeconds(30), Duration.ofSeconds(30), 1 << 20, 1));
    try (Socket open = connect(port)) {
      assertOpenFor(open, Duration.ofMillis(100));
      List<Socket> refused = new ArrayList<>();
      try {
        for (int i = 0; i < 3; i++) {
          refused.add(connect(port));
          awaitClosed(refused.get(i));
        }
        Thread.sleep(1200); // past the one-line-a-second window
        refused.add(connect(port));
        awaitClosed(refused.get(3));
        awaitLines(line -> line.contains("127.0.0.1:" + refused.get(3).getLocalPort() + ":"));

        // Every refusal is either a line naming its peer or counted in the next line.
        long accounted = 0;
        for (String line : guardLines()) {
          assertThat(line).contains("refusing connection from").contains("(max-connections)");
          Matcher more = MORE_REFUSED.matcher(line);
          accounted += 1 + (more.find() ? Long.parseLong(more.group(1)) : 0);
        }
        assertThat(accounted).isEqualTo(refused.size());
        assertThat(linesAbout(refused.get(0))).hasSize(1);
        assertThat(linesAbout(refused.get(3))).hasSize(1);
        for (Socket socket : refused) {
          assertThat(linesAbout(socket)).hasSizeLessThanOrEqualTo(1);
        }
        assertThat(linesAbout(open)).isEmpty();
      } finally {
        for (Socket socket : refused) {
          socket.close();
        }
      }
    }
  }

  private void awaitLines(java.util.function.Predicate<String> wanted) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (guardLines().stream().noneMatch(wanted) && System.nanoTime() < deadline) {
      Thread.sleep(10);
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
