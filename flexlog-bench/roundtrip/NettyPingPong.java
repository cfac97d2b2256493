import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The round-trip floor (flexlog-bench/README.md#the-two-parts-of-a-round-trip-2026-11-27-eighth-session):
 * a fresh JVM with one NIO event loop makes sequential round trips of one buffer to {@link
 * NettyEchoServer} (one hop, two threads), measured from before the write to the echo's last
 * byte, and prints p50, p99, p99.9 and max in µs. Arguments: port, round trips, record bytes.
 */
public final class NettyPingPong {
  private static volatile CompletableFuture<Void> pending;
  private static int received;

  public static void main(String[] args) throws Exception {
    int roundTrips = Integer.parseInt(args[1]);
    int bytes = Integer.parseInt(args[2]);
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    Channel channel =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .handler(
                new ChannelInboundHandlerAdapter() {
                  @Override
                  public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    ByteBuf buffer = (ByteBuf) msg;
                    received += buffer.readableBytes();
                    buffer.release();
                    if (received >= bytes) {
                      received -= bytes;
                      pending.complete(null);
                    }
                  }
                })
            .connect("127.0.0.1", Integer.parseInt(args[0]))
            .sync()
            .channel();
    long[] latencyNs = new long[roundTrips];
    byte[] payload = new byte[bytes];
    for (int i = 0; i < roundTrips; i++) {
      pending = new CompletableFuture<>();
      long begin = System.nanoTime();
      channel.writeAndFlush(channel.alloc().directBuffer(bytes).writeBytes(payload));
      pending.get(10, TimeUnit.SECONDS);
      latencyNs[i] = System.nanoTime() - begin;
    }
    channel.close().sync();
    group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).sync();
    Arrays.sort(latencyNs);
    System.out.printf(
        "netty ping-pong: %,d round trips of %d bytes, p50 %d us, p99 %d us, p99.9 %d us,"
            + " max %d us%n",
        roundTrips, bytes, latencyNs[roundTrips / 2] / 1000,
        latencyNs[(int) (roundTrips * 0.99)] / 1000, latencyNs[(int) (roundTrips * 0.999)] / 1000,
        latencyNs[roundTrips - 1] / 1000);
  }
}
