package io.flexlog.server.status;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.ReplicaDescription;
import io.flexlog.core.net.ClientBootstrap;
import io.flexlog.core.net.Transport;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.ReplicaStatusDescriptor;
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
import java.util.concurrent.atomic.AtomicReference;

/**
 * Asks one node, over one short-lived connection, for the trim point and tail of some colors
 * (TAIL_REQUEST, docs/architecture.md#head-and-tail) and, of a replica, its records and bytes per
 * storage tier and its colors (REPLICA_STATUS,
 * docs/protocol.md#replica_status-and-replica_status_response). Blocking; for {@code bin/flexlog
 * status}.
 */
final class NodeProbe {
  /** One color's answer from the node: its trim point and tail, or the error it gave. */
  record ColorAnswer(long trimPoint, long tail, String error) {}

  /**
   * What the node answered, or why it could not be asked.
   *
   * @param replica the REPLICA_STATUS answer, null when not asked or not answered
   */
  record Result(
      boolean up, String problem, Map<Integer, ColorAnswer> colors, ReplicaDescription replica) {}

  private NodeProbe() {}

  /** TAIL_REQUEST for each of {@code colorIds}. */
  static Result probe(
      EventLoopGroup group, String host, int port, List<Integer> colorIds, Duration timeout) {
    return probe(group, host, port, colorIds, false, timeout);
  }

  /**
   * TAIL_REQUEST for each of {@code colorIds} and, with {@code askReplica}, REPLICA_STATUS (request
   * id {@code colorIds.size()}).
   */
  static Result probe(
      EventLoopGroup group,
      String host,
      int port,
      List<Integer> colorIds,
      boolean askReplica,
      Duration timeout) {
    Map<Integer, ColorAnswer> answers = new ConcurrentHashMap<>();
    AtomicReference<ReplicaDescription> replica = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(colorIds.size() + (askReplica ? 1 : 0));
    Channel channel;
    try {
      channel =
          ClientBootstrap.framed(
                  group,
                  (int) timeout.toMillis(),
                  Transport.MAX_FRAME_BYTES,
                  () -> new Handler(colorIds, answers, replica, done))
              .connect(host, port)
              .sync()
              .channel();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(false, "interrupted", Map.of(), null);
    } catch (Exception e) {
      String message = e.getMessage() != null ? e.getMessage() : e.toString();
      int address = message.indexOf(": /");
      return new Result(
          false, address > 0 ? message.substring(0, address) : message, Map.of(), null);
    }
    try {
      for (int i = 0; i < colorIds.size(); i++) {
        channel.write(TailDescriptor.encodeRequest(channel.alloc(), i, colorIds.get(i)));
      }
      if (askReplica) {
        channel.write(ReplicaStatusDescriptor.encodeRequest(channel.alloc(), colorIds.size()));
      }
      channel.flush();
      if (!done.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        return new Result(
            true, "no answer within " + timeout.toMillis() + " ms", answers, replica.get());
      }
      return new Result(true, null, answers, replica.get());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(true, "interrupted", answers, replica.get());
    } finally {
      channel.close();
    }
  }

  private static final class Handler extends ChannelInboundHandlerAdapter {
    private final List<Integer> colorIds;
    private final Map<Integer, ColorAnswer> answers;
    private final AtomicReference<ReplicaDescription> replica;
    private final CountDownLatch done;

    Handler(
        List<Integer> colorIds,
        Map<Integer, ColorAnswer> answers,
        AtomicReference<ReplicaDescription> replica,
        CountDownLatch done) {
      this.colorIds = colorIds;
      this.answers = answers;
      this.replica = replica;
      this.done = done;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf frame = (ByteBuf) msg;
      try {
        long index = FrameDescriptor.requestId(frame);
        if (index == colorIds.size()) {
          if (FrameDescriptor.type(frame) == MessageType.REPLICA_STATUS_RESPONSE) {
            replica.set(ReplicaStatusDescriptor.decodeResponse(frame));
          }
          done.countDown();
          return;
        }
        if (index < 0 || index > colorIds.size()) {
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
