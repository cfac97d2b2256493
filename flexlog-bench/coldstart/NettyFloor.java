import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Cold start floor of any Netty client (flexlog-bench/README.md#cold-start-and-client-closure): a
 * fresh JVM starts one NIO event loop as FlexLog's client does, connects to an echo server, writes
 * 10 bytes from Netty's default allocator, waits for them to come back, prints the wall-clock time
 * of that moment in ms and exits. No FlexLog class is loaded.
 */
public final class NettyFloor {
  public static void main(String[] args) throws Exception {
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    CompletableFuture<Integer> echoed = new CompletableFuture<>();
    Channel channel =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .handler(
                new ChannelInboundHandlerAdapter() {
                  @Override
                  public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    ByteBuf bytes = (ByteBuf) msg;
                    echoed.complete(bytes.readableBytes());
                    bytes.release();
                  }
                })
            .connect(args[0], Integer.parseInt(args[1]))
            .sync()
            .channel();
    channel.writeAndFlush(
        channel.alloc().directBuffer().writeBytes("cold start".getBytes(StandardCharsets.UTF_8)));
    int bytes = echoed.get();
    long echoedMs = System.currentTimeMillis();
    channel.close().sync();
    group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).sync();
    System.out.println(echoedMs + " bytes=" + bytes);
  }
}
