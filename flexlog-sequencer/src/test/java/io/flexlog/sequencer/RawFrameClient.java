package io.flexlog.sequencer;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.model.Token;
import io.flexlog.core.net.ClientBootstrap;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.HelloDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.OrderRequestDescriptor;
import io.flexlog.core.protocol.OrderResponseDescriptor;
import io.flexlog.core.protocol.WatermarkDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Test-only client speaking raw frames to a sequencer over loopback: sends what a test builds and
 * queues every frame received, in arrival order, as an unpooled copy.
 */
final class RawFrameClient implements AutoCloseable {
  static final long TIMEOUT_MS = 5_000;

  private final Channel channel;
  private final BlockingQueue<ByteBuf> received = new LinkedBlockingQueue<>();
  private final BlockingQueue<ByteBuf> welcomes = new LinkedBlockingQueue<>();

  RawFrameClient(EventLoopGroup group, int port) throws InterruptedException {
    channel =
        ClientBootstrap.framed(
                group,
                (int) TIMEOUT_MS,
                1 << 20,
                () ->
                    new SimpleChannelInboundHandler<ByteBuf>() {
                      @Override
                      protected void channelRead0(ChannelHandlerContext ctx, ByteBuf f) {
                        if (FrameDescriptor.type(f) == MessageType.WELCOME) {
                          welcomes.add(Unpooled.copiedBuffer(f));
                        } else {
                          received.add(Unpooled.copiedBuffer(f));
                        }
                      }
                    })
            .connect("127.0.0.1", port)
            .sync()
            .channel();
  }

  ByteBufAllocator alloc() {
    return channel.alloc();
  }

  void hello(int replicaNodeId, int... shardIds) {
    channel.writeAndFlush(HelloDescriptor.encode(alloc(), replicaNodeId, shardIds));
  }

  void orderRequest(int colorId, int shardId, int replicaNodeId, Token... tokens) {
    channel.writeAndFlush(orderRequestFrame(colorId, shardId, replicaNodeId, tokens));
  }

  /** An ORDER_REQUEST addressed to the role's leader in {@code roleEpoch}. */
  void orderRequestInEpoch(
      int roleEpoch, int colorId, int shardId, int replicaNodeId, Token... tokens) {
    ByteBuf buf =
        OrderRequestDescriptor.encodeHeader(
            alloc(), roleEpoch, colorId, shardId, replicaNodeId, tokens.length);
    for (Token t : tokens) {
      OrderRequestDescriptor.writeToken(buf, t.session(), t.sequence());
    }
    channel.writeAndFlush(buf);
  }

  ByteBuf orderRequestFrame(int colorId, int shardId, int replicaNodeId, Token... tokens) {
    ByteBuf buf =
        OrderRequestDescriptor.encodeHeader(
            alloc(), colorId, shardId, replicaNodeId, tokens.length);
    for (Token t : tokens) {
      OrderRequestDescriptor.writeToken(buf, t.session(), t.sequence());
    }
    return buf;
  }

  /** Writes without flushing; {@link #flush} sends everything written in one go. */
  void write(ByteBuf frame) {
    channel.write(frame);
  }

  void flush() {
    channel.flush();
  }

  void send(ByteBuf frame) {
    channel.writeAndFlush(frame);
  }

  /** The next frame received; fails the test after {@link #TIMEOUT_MS}. */
  /** The next WELCOME (kept apart from the other frames, which tests read in order). */
  ByteBuf nextWelcome() throws InterruptedException {
    ByteBuf frame = welcomes.poll(TIMEOUT_MS, TimeUnit.MILLISECONDS);
    assertThat(frame).as("a WELCOME within %d ms", TIMEOUT_MS).isNotNull();
    return frame;
  }

  ByteBuf next() throws InterruptedException {
    ByteBuf frame = received.poll(TIMEOUT_MS, TimeUnit.MILLISECONDS);
    assertThat(frame).as("a frame within %d ms", TIMEOUT_MS).isNotNull();
    return frame;
  }

  /** The next frame, which must have the given type. */
  ByteBuf next(byte type) throws InterruptedException {
    ByteBuf frame = next();
    assertThat(MessageType.name(FrameDescriptor.type(frame))).isEqualTo(MessageType.name(type));
    return frame;
  }

  /** The frames received so far that nobody took yet. */
  List<ByteBuf> drain() {
    List<ByteBuf> frames = new ArrayList<>();
    received.drainTo(frames);
    return frames;
  }

  /**
   * Reads frames until a WATERMARK of {@code colorId} covers {@code sn}; returns every frame read,
   * that watermark included.
   */
  List<ByteBuf> readThroughWatermark(int colorId, long sn) throws InterruptedException {
    List<ByteBuf> frames = new ArrayList<>();
    while (true) {
      ByteBuf frame = next();
      frames.add(frame);
      if (FrameDescriptor.type(frame) == MessageType.WATERMARK
          && WatermarkDescriptor.colorId(frame) == colorId
          && WatermarkDescriptor.watermark(frame) >= sn) {
        return frames;
      }
    }
  }

  /**
   * Reads frames until {@code tokenCount} tokens of {@code colorId} have an SN and a later
   * watermark of that color covers them all, failing if a watermark of the color ever arrives
   * before a response whose SN it covers. Frames of other colors are skipped. Returns the entries.
   */
  List<Entry> awaitOrdered(int colorId, int tokenCount) throws InterruptedException {
    List<Entry> entries = new ArrayList<>();
    long highestSn = 0;
    long watermark = 0;
    while (true) {
      ByteBuf frame = next();
      byte type = FrameDescriptor.type(frame);
      if (type == MessageType.ORDER_RESPONSE && OrderResponseDescriptor.colorId(frame) == colorId) {
        for (Entry e : entries(frame)) {
          assertThat(e.sn())
              .as("response for %s after watermark %s", e, watermark)
              .isGreaterThan(watermark);
          entries.add(e);
          highestSn = Math.max(highestSn, e.sn());
        }
      } else if (type == MessageType.WATERMARK && WatermarkDescriptor.colorId(frame) == colorId) {
        watermark = Math.max(watermark, WatermarkDescriptor.watermark(frame));
        if (entries.size() >= tokenCount && watermark >= highestSn) {
          return entries;
        }
      } else {
        assertThat(type).isIn(MessageType.ORDER_RESPONSE, MessageType.WATERMARK);
      }
    }
  }

  boolean awaitClosed() throws InterruptedException {
    return channel.closeFuture().await(TIMEOUT_MS);
  }

  boolean isActive() {
    return channel.isActive();
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
  }

  /** One (token, sn) entry of an ORDER_RESPONSE. */
  record Entry(Token token, long sn) {}

  static List<Entry> entries(ByteBuf orderResponse) {
    List<Entry> entries = new ArrayList<>();
    for (int i = 0; i < OrderResponseDescriptor.count(orderResponse); i++) {
      entries.add(
          new Entry(
              new Token(
                  OrderResponseDescriptor.tokenSession(orderResponse, i),
                  OrderResponseDescriptor.tokenSequence(orderResponse, i)),
              OrderResponseDescriptor.sn(orderResponse, i)));
    }
    return entries;
  }
}
