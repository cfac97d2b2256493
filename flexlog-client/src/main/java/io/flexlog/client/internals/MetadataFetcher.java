package io.flexlog.client.internals;

import io.flexlog.client.FlexLogConfig;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.FlexLogTimeoutException;
import io.flexlog.core.error.UnreachableException;
import io.flexlog.core.net.ClientBootstrap;
import io.flexlog.core.net.Transport;
import io.flexlog.core.protocol.ErrorDescriptor;
import io.flexlog.core.protocol.FrameDescriptor;
import io.flexlog.core.protocol.MessageType;
import io.flexlog.core.protocol.MetadataDescriptor;
import io.flexlog.core.protocol.MetadataDescriptor.Metadata;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Asks the bootstrap servers, in order, for the cluster's metadata. Blocking; not on the loop. */
final class MetadataFetcher {
  private MetadataFetcher() {}

  /**
   * @throws UnreachableException when no bootstrap server could be connected to (each refused the
   *     connection or failed to connect) before the connect timeout
   * @throws FlexLogTimeoutException when the connect timeout passed first
   */
  static Metadata fetch(EventLoopGroup group, FlexLogConfig config) {
    List<String> failures = new ArrayList<>();
    long startNs = System.nanoTime();
    long deadline = startNs + config.connectTimeout().toNanos();
    boolean onlyConnectFailures = true;
    for (String server : config.bootstrapServers()) {
      long remainingNs = deadline - System.nanoTime();
      if (remainingNs <= 0) {
        onlyConnectFailures = false;
        break;
      }
      try {
        return fetchFrom(group, server, remainingNs);
      } catch (UnreachableException e) {
        failures.add(server + ": " + e.getMessage());
      } catch (FlexLogException e) {
        onlyConnectFailures = false;
        failures.add(server + ": " + e.getMessage());
      }
    }
    if (onlyConnectFailures && !failures.isEmpty()) {
      throw new UnreachableException(
          "no bootstrap server reachable (after "
              + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs)
              + " ms): "
              + failures);
    }
    throw new FlexLogTimeoutException(
        "no bootstrap server answered within connect.timeout.ms = "
            + config.connectTimeout().toMillis()
            + " ms: "
            + (failures.isEmpty() ? config.bootstrapServers() : failures));
  }

  private static Metadata fetchFrom(EventLoopGroup group, String server, long timeoutNs) {
    String[] hostPort = FlexLogConfig.parseHostPort(server);
    CompletableFuture<Metadata> result = new CompletableFuture<>();
    Bootstrap bootstrap =
        ClientBootstrap.framed(
            group,
            (int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNs)),
            Transport.MAX_FRAME_BYTES,
            () -> new Handler(result));
    Channel channel = null;
    try {
      channel = bootstrap.connect(hostPort[0], Integer.parseInt(hostPort[1])).sync().channel();
      channel.writeAndFlush(MetadataDescriptor.encodeRequest(channel.alloc(), 1L));
      return result.get(timeoutNs, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FlexLogException("interrupted while fetching metadata from " + server);
    } catch (TimeoutException e) {
      throw new FlexLogTimeoutException("no metadata within the connect timeout");
    } catch (ExecutionException e) {
      throw e.getCause() instanceof FlexLogException f
          ? f
          : new FlexLogException(e.getCause().toString(), e.getCause());
    } catch (Exception e) {
      // Netty rethrows the connect failure (refused, unresolved, no file descriptors) from sync().
      if (e instanceof io.netty.channel.ConnectTimeoutException) {
        throw new FlexLogTimeoutException("no connection within the connect timeout");
      }
      throw channel == null
          ? new UnreachableException("cannot connect: " + e.getMessage())
          : new FlexLogException("cannot fetch metadata: " + e.getMessage(), e);
    } finally {
      if (channel != null) {
        channel.close();
      }
    }
  }

  private static final class Handler extends ChannelInboundHandlerAdapter {
    private final CompletableFuture<Metadata> result;

    Handler(CompletableFuture<Metadata> result) {
      this.result = result;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf frame = (ByteBuf) msg;
      try {
        switch (FrameDescriptor.type(frame)) {
          case MessageType.METADATA_RESPONSE ->
              result.complete(MetadataDescriptor.decodeResponse(frame));
          case MessageType.ERROR ->
              result.completeExceptionally(
                  FlexLogException.fromWire(
                      ErrorDescriptor.code(frame), ErrorDescriptor.message(frame)));
          default ->
              result.completeExceptionally(
                  new FlexLogException(
                      "unexpected " + MessageType.name(FrameDescriptor.type(frame))));
        }
      } finally {
        frame.release();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      result.completeExceptionally(new FlexLogException(cause.toString(), cause));
      ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      result.completeExceptionally(new FlexLogException("connection closed before metadata"));
    }
  }
}
