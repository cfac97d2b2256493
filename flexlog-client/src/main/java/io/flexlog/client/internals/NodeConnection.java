package io.flexlog.client.internals;

import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.net.ClientBootstrap;
import io.flexlog.core.net.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's connection to one node. Connects on first use and again after a failure; frames
 * written while it is connecting are queued (bounded) and written once it is up, or dropped if the
 * attempt fails, in which case the request's retry timer sends them again. A failed attempt and a
 * connection that closes both run {@code onLost}. Loop-confined.
 */
final class NodeConnection {
  private static final Logger LOG = LoggerFactory.getLogger(NodeConnection.class);
  private static final int CONNECT_TIMEOUT_MS = 3000;
  private static final int MAX_QUEUED = 4096;

  final NodeAddress node;
  private final Bootstrap bootstrap;
  private final Runnable onLost;
  private final ArrayDeque<ByteBuf> queued = new ArrayDeque<>();
  private Channel channel;
  private boolean connecting;
  private boolean closed;
  private boolean dirty;

  NodeConnection(
      NodeAddress node, EventLoop loop, Supplier<ChannelHandler> handler, Runnable onLost) {
    this.node = node;
    this.onLost = onLost;
    this.bootstrap =
        ClientBootstrap.framed(loop, CONNECT_TIMEOUT_MS, Transport.MAX_FRAME_BYTES, handler);
  }

  void connect() {
    if (closed || connecting || (channel != null && channel.isActive())) {
      return;
    }
    connecting = true;
    bootstrap
        .connect(node.host(), node.port())
        .addListener(
            f -> {
              connecting = false;
              if (f.isSuccess()) {
                channel = ((io.netty.channel.ChannelFuture) f).channel();
                if (closed) {
                  channel.close();
                  return;
                }
                channel.closeFuture().addListener(c -> onLost.run());
                while (!queued.isEmpty()) {
                  channel.write(queued.poll(), channel.voidPromise());
                }
                channel.flush();
              } else {
                LOG.debug("cannot reach node {} at {}: {}", node.id(), node.hostPort(), f.cause());
                drop();
                if (!closed) {
                  onLost.run();
                }
              }
            });
  }

  /** Writes a frame (ownership passes to this connection); sent on the next {@link #flush()}. */
  void write(ByteBuf buf) {
    if (channel != null && channel.isActive()) {
      channel.write(buf, channel.voidPromise());
      dirty = true;
      return;
    }
    if (queued.size() >= MAX_QUEUED || closed) {
      ReferenceCountUtil.release(buf);
      return;
    }
    queued.add(buf);
    connect();
  }

  void flush() {
    if (dirty) {
      dirty = false;
      channel.flush();
    }
  }

  boolean isConnected() {
    return channel != null && channel.isActive();
  }

  private void drop() {
    while (!queued.isEmpty()) {
      ReferenceCountUtil.release(queued.poll());
    }
  }

  void close() {
    closed = true;
    drop();
    if (channel != null) {
      channel.close();
    }
  }
}
