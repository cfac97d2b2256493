package io.flexlog.replica.atomic;

import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Topology;
import io.flexlog.core.net.ClientBootstrap;
import io.flexlog.core.net.ConnectionErrors;
import io.flexlog.core.net.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.agrona.collections.Int2ObjectHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TCP connections from this replica node to other replica nodes (itself included), over which it
 * forwards atomic members as a client would. Connects on first use and again after a failure;
 * frames written while connecting are queued (bounded) and dropped if the attempt fails: the
 * forwarder's retry timer sends them again. Inbound frames go to {@code sink} on the same loop.
 *
 * <p>Threading: confined to the replica's event loop.
 */
public final class PeerLinks implements ForwardTransport {
  private static final Logger LOG = LoggerFactory.getLogger(PeerLinks.class);
  private static final int CONNECT_TIMEOUT_MS = 3000;
  private static final int MAX_QUEUED = 4096;

  private final Supplier<Topology> topology;
  private final Bootstrap bootstrap;
  private final Int2ObjectHashMap<Link> links = new Int2ObjectHashMap<>();
  private final List<Link> dirty = new ArrayList<>();
  private Consumer<ByteBuf> sink = frame -> {};
  private boolean closed;

  public PeerLinks(EventLoop loop, Supplier<Topology> topology) {
    this.topology = topology;
    this.bootstrap =
        ClientBootstrap.framed(loop, CONNECT_TIMEOUT_MS, Transport.MAX_FRAME_BYTES, Inbound::new);
  }

  /** Where frames from peers go; the sink does not own them. */
  public void deliverTo(Consumer<ByteBuf> sink) {
    this.sink = sink;
  }

  @Override
  public void send(int nodeId, ByteBuf frame) {
    if (closed) {
      ReferenceCountUtil.release(frame);
      return;
    }
    Link link = links.get(nodeId);
    if (link == null) {
      link = new Link(topology.get().node(nodeId));
      links.put(nodeId, link);
    }
    link.write(frame);
    if (!dirty.contains(link)) {
      dirty.add(link);
    }
  }

  @Override
  public void flush() {
    for (int i = 0; i < dirty.size(); i++) {
      dirty.get(i).flush();
    }
    dirty.clear();
  }

  public void close() {
    closed = true;
    links.values().forEach(Link::close);
    links.clear();
  }

  /** One connection to one replica node. */
  private final class Link {
    final NodeAddress node;
    final ArrayDeque<ByteBuf> queued = new ArrayDeque<>();
    Channel channel;
    boolean connecting;

    Link(NodeAddress node) {
      this.node = node;
    }

    void write(ByteBuf frame) {
      if (channel != null && channel.isActive()) {
        channel.write(frame, channel.voidPromise());
        return;
      }
      if (queued.size() >= MAX_QUEUED) {
        ReferenceCountUtil.release(frame);
        return;
      }
      queued.add(frame);
      connect();
    }

    void connect() {
      if (connecting) {
        return;
      }
      connecting = true;
      bootstrap
          .connect(node.host(), node.port())
          .addListener(
              f -> {
                connecting = false;
                if (f.isSuccess() && !closed) {
                  channel = ((ChannelFuture) f).channel();
                  while (!queued.isEmpty()) {
                    channel.write(queued.poll(), channel.voidPromise());
                  }
                  channel.flush();
                } else {
                  if (f.isSuccess()) {
                    ((ChannelFuture) f).channel().close();
                  }
                  LOG.debug("cannot reach replica node {}: {}", node.id(), f.cause());
                  drop();
                }
              });
    }

    void flush() {
      if (channel != null && channel.isActive()) {
        channel.flush();
      }
    }

    void drop() {
      while (!queued.isEmpty()) {
        ReferenceCountUtil.release(queued.poll());
      }
    }

    void close() {
      drop();
      if (channel != null) {
        channel.close();
      }
    }
  }

  private final class Inbound extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf frame = (ByteBuf) msg;
      try {
        sink.accept(frame);
      } finally {
        frame.release();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ConnectionErrors.closeOnError(ctx, cause, LOG);
    }
  }
}
