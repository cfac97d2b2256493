package io.flexlog.server.status;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.net.ClientBootstrap;
import io.flexlog.core.net.Transport;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.TailDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Asks one node, over one short-lived connection, for the trim point and tail of some colors
 * (TAIL_REQUEST, docs/architecture.md#head-and-tail). Blocking; for {@code bin/flexlog status}.
 */
final class NodeProbe {
  /** One color's answer from the node: its trim point and tail, or the error it gave. */
  record ColorAnswer(long trimPoint, long tail, String error) {}

  /** What the node answered, or why it could not be asked. */
  record Result(boolean up, String problem, Map<Integer, ColorAnswer> colors) {}

  private NodeProbe() {}

  static Result probe(
      EventLoopGroup group, String host, int port, List<Integer> colorIds, Duration timeout) {
    Map<Integer, ColorAnswer> answers = new ConcurrentHashMap<>();
    CountDownLatch done = new CountDownLatch(colorIds.size());
    Channel channel;
    try {
      channel =
          ClientBootstrap.framed(
                  group,
                  (int) timeout.toMillis(),
                  Transport.MAX_FRAME_BYTES,
                  () -> new Handler(colorIds, answers, done))
              .connect(host, port)
              .sync()
              .channel();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(false, "interrupted", Map.of());
    } catch (Exception e) {
      String message = e.getMessage() != null ? e.getMessage() : e.toString();
      int address = message.indexOf(": /");
      return new Result(false, address > 0 ? message.substring(0, address) : message, Map.of());
    }
    try {
      for (int i = 0; i < colorIds.size(); i++) {
        channel.write(TailDescriptor.encodeRequest(channel.alloc(), i, colorIds.get(i)));
      }
      channel.flush();
      if (!done.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        return new Result(true, "no answer within " + timeout.toMillis() + " ms", answers);
      }
      return new Result(true, null, answers);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(true, "interrupted", answers);
    } finally {
      channel.close();
    }
  }

  private static final class Handler extends ChannelInboundHandlerAdapter {
    private final List<Integer> colorIds;
    private final Map<Integer, ColorAnswer> answers;
    private final CountDownLatch done;

    Handler(List<Integer> colorIds, Map<Integer, ColorAnswer> answers, CountDownLatch done) {
      this.colorIds = colorIds;
      this.answers = answers;
      this.done = done;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf frame = (ByteBuf) msg;
      try {
        long index = FrameDescriptor.requestId(frame);
        if (index < 0 || index >= colorIds.size()) {
          return;
        }
        int colorId = colorIds.get((int) index);
        if (FrameDescriptor.type(frame) == MessageType.TAIL_RESPONSE) {
          answers.put(
              colorId,
              new ColorAnswer(TailDescriptor.trimPoint(frame), TailDescriptor.tail(frame), null));
        } else if (FrameDescriptor.type(frame) == MessageType.ERROR) {
          ErrorCode code = ErrorDescriptor.code(frame);
          answers.put(colorId, new ColorAnswer(0, 0, code + ": " + ErrorDescriptor.message(frame)));
        } else {
          return;
        }
        done.countDown();
      } finally {
        frame.release();
      }
    }
  }
}
