package io.flexlog.client.internals;

import io.flexlog.client.FlexLogConfig;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.FlexLogTimeoutException;
import io.flexlog.core.error.ProtocolException;
import io.flexlog.core.error.UnreachableException;
import io.flexlog.core.net.ClientBootstrap;
import io.flexlog.core.net.Transport;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The network side of {@code FlexLogAdmin}: sends one admin request (CREATE_COLOR, ALTER_COLOR,
 * DESCRIBE_COLORS, DESCRIBE_CLUSTER) to a node, which relays it to the cluster's admin service
 * (docs/architecture.md#admin-requests-on-the-data-plane), and decodes the answer.
 *
 * <p>Each call opens a connection to the first bootstrap server, sends the request and waits for
 * the answer. A server that cannot be connected to, or closes the connection before answering, is
 * skipped for the next one (every admin request may be sent again: CREATE_COLOR is idempotent by
 * name); an ERROR answer is final and fails the call with its typed exception. The call fails with
 * {@link UnreachableException} when no server could be reached, and with {@link
 * FlexLogTimeoutException} when {@code delivery.timeout.ms} passes first.
 *
 * <p>Threading: calls may come from any thread; the work runs on one event loop ({@code
 * flexlog-admin}), where the futures complete.
 */
public final class AdminCalls implements AutoCloseable {
  private final FlexLogConfig config;
  private final EventLoopGroup group;
  private final AtomicLong requestIds = new AtomicLong();
  private final Set<CompletableFuture<?>> inFlight = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  public AdminCalls(FlexLogConfig config) {
    this.config = config;
    this.group = Transport.eventLoops("flexlog-admin", 1);
  }

  /**
   * Sends a request and decodes its answer.
   *
   * @param requestType the request's frame type, for messages
   * @param encode builds the request frame for a request id
   * @param responseType the frame type of a successful answer
   * @param decode reads a successful answer (the frame stays owned by the caller)
   */
  public <T> CompletableFuture<T> call(
      byte requestType,
      BiFunction<ByteBufAllocator, Long, ByteBuf> encode,
      byte responseType,
      Function<ByteBuf, T> decode) {
    return call(config.bootstrapServers(), requestType, encode, responseType, decode);
  }

  /**
   * As {@link #call(byte, BiFunction, byte, Function)}, to {@code servers} ({@code host:port}, in
   * order) instead of the bootstrap servers: for requests a given node answers itself
   * (REPLICA_STATUS).
   */
  public <T> CompletableFuture<T> call(
      List<String> servers,
      byte requestType,
      BiFunction<ByteBufAllocator, Long, ByteBuf> encode,
      byte responseType,
      Function<ByteBuf, T> decode) {
    CompletableFuture<T> result = new CompletableFuture<>();
    Call<T> call =
        new Call<>(
            requestIds.incrementAndGet(),
            List.copyOf(servers),
            requestType,
            encode,
            responseType,
            decode,
            result);
    inFlight.add(result);
    result.whenComplete((value, error) -> inFlight.remove(result));
    long timeoutMs = config.deliveryTimeout().toMillis();
    try {
      if (closed) {
        throw new RejectedExecutionException();
      }
      ScheduledFuture<?> deadline =
          group.schedule(
              () ->
                  result.completeExceptionally(
                      new FlexLogTimeoutException(
                          MessageType.name(requestType)
                              + " got no answer within delivery.timeout.ms = "
                              + timeoutMs
                              + " ms"
                              + (call.failures.isEmpty() ? "" : "; tried " + call.failures))),
              timeoutMs,
              TimeUnit.MILLISECONDS);
      result.whenComplete((value, error) -> deadline.cancel(false));
      group.execute(() -> call.attempt(0));
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(new FlexLogException("the admin client is closed"));
    }
    return result;
  }

  /** One admin call: its attempts on the bootstrap servers, in order. */
  private final class Call<T> {
    private final long requestId;
    private final List<String> servers;
    private final byte requestType;
    private final BiFunction<ByteBufAllocator, Long, ByteBuf> encode;
    private final byte responseType;
    private final Function<ByteBuf, T> decode;
    private final CompletableFuture<T> result;
    private final List<String> failures = new ArrayList<>();

    Call(
        long requestId,
        List<String> servers,
        byte requestType,
        BiFunction<ByteBufAllocator, Long, ByteBuf> encode,
        byte responseType,
        Function<ByteBuf, T> decode,
        CompletableFuture<T> result) {
      this.requestId = requestId;
      this.servers = servers;
      this.requestType = requestType;
      this.encode = encode;
      this.responseType = responseType;
      this.decode = decode;
      this.result = result;
    }

    /** Runs on the loop. */
    void attempt(int index) {
      if (result.isDone()) {
        return;
      }
      if (index >= servers.size()) {
        result.completeExceptionally(
            new UnreachableException(
                (servers.equals(config.bootstrapServers())
                        ? "no bootstrap server answered "
                        : "no answer from " + String.join(", ", servers) + " to ")
                    + MessageType.name(requestType)
                    + ": "
                    + failures));
        return;
      }
      String server = servers.get(index);
      String[] hostPort = FlexLogConfig.parseHostPort(server);
      Bootstrap bootstrap =
          ClientBootstrap.framed(
              group,
              (int) Math.max(1, config.connectTimeout().toMillis()),
              Transport.MAX_FRAME_BYTES,
              () -> new Answer(index, server));
      ChannelFuture connect = bootstrap.connect(hostPort[0], Integer.parseInt(hostPort[1]));
      connect.addListener(
          f -> {
            if (!f.isSuccess()) {
              failures.add(server + ": cannot connect: " + f.cause().getMessage());
              attempt(index + 1);
              return;
            }
            Channel channel = connect.channel();
            result.whenComplete((value, error) -> channel.close());
            channel.writeAndFlush(encode.apply(channel.alloc(), requestId));
          });
    }

    /** Reads the answer on one attempt's connection. */
    private final class Answer extends ChannelInboundHandlerAdapter {
      private final int index;
      private final String server;
      private boolean answered;

      Answer(int index, String server) {
        this.index = index;
        this.server = server;
      }

      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        try {
          answered = true;
          byte type = FrameDescriptor.type(frame);
          if (type == responseType && FrameDescriptor.requestId(frame) == requestId) {
            result.complete(decode.apply(frame));
          } else if (type == MessageType.ERROR) {
            result.completeExceptionally(
                FlexLogException.fromWire(
                    ErrorDescriptor.code(frame), server + ": " + ErrorDescriptor.message(frame)));
          } else {
            result.completeExceptionally(
                new ProtocolException(
                    server
                        + " answered "
                        + MessageType.name(requestType)
                        + " with "
                        + MessageType.name(type)));
          }
        } catch (RuntimeException e) {
          result.completeExceptionally(e);
        } finally {
          frame.release();
          ctx.close();
        }
      }

      @Override
      public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!answered) {
          failures.add(server + ": " + cause.getMessage());
        }
        ctx.close();
      }

      @Override
      public void channelInactive(ChannelHandlerContext ctx) {
        if (!answered) {
          answered = true;
          failures.add(server + ": connection closed before an answer");
          attempt(index + 1);
        }
      }
    }
  }

  /** Fails the calls in flight and stops the event loop. */
  @Override
  public void close() {
    closed = true;
    for (CompletableFuture<?> call : List.copyOf(inFlight)) {
      call.completeExceptionally(
          new FlexLogException("the admin client was closed before the answer came"));
    }
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
