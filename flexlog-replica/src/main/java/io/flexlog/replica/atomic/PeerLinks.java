package io.flexlog.replica.atomic;

import io.flexlog.core.model.Topology;
import io.flexlog.core.net.ClientBootstrap;
import io.flexlog.core.net.ConnectionErrors;
import io.flexlog.core.net.QueuedConnection;
import io.flexlog.core.net.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCountUtil;
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

  private final Supplier<Topology> topology;
  private final Bootstrap bootstrap;
  private final Int2ObjectHashMap<QueuedConnection> links = new Int2ObjectHashMap<>();
  private final List<QueuedConnection> dirty = new ArrayList<>();
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
    QueuedConnection link = links.get(nodeId);
    if (link == null) {
      link = new QueuedConnection(topology.get().node(nodeId), bootstrap, () -> {});
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
    links.values().forEach(QueuedConnection::close);
    links.clear();
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
