package io.flexlog.client.internals;

import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.core.net.ClientBootstrap;
import io.flexlog.core.net.QueuedConnection;
import io.flexlog.core.net.Transport;
import io.flexlog.core.net.WriteListener;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;
import java.util.function.Supplier;

/**
 * The Netty edge of {@link Outbound}: one {@link QueuedConnection} per node, made on first use from
 * the current topology. Connections written to during a loop turn are flushed once, by a task at
 * the end of the turn (natural batching), or earlier by {@link #flush()}.
 *
 * <p>Threading: the client's event loop only.
 */
final class Connections implements Outbound {
  /**
   * The allocator Netty gives every channel by default: its reads use it anyway, and a second,
   * pooled allocator for the frames written cost a fresh client's first append about 30 classes and
   * their arenas.
   */
  private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

  private static final int CONNECT_TIMEOUT_MS = 3000;

  private final EventLoop loop;
  private final Supplier<Topology> topology;
  private final Bootstrap bootstrap;
  private final IntConsumer onLost;
  private final Map<Integer, QueuedConnection> connections = new HashMap<>();
  private final List<QueuedConnection> dirty = new ArrayList<>();
  private final Runnable flushTask = this::flush;
  private boolean flushScheduled;

  /**
   * @param handler makes the inbound handler of each new connection
   * @param onLost told of the node id whenever a connection to it fails or closes
   */
  Connections(
      EventLoop loop,
      Supplier<Topology> topology,
      Supplier<ChannelHandler> handler,
      IntConsumer onLost) {
    this.loop = loop;
    this.topology = topology;
    this.bootstrap =
        ClientBootstrap.framed(loop, CONNECT_TIMEOUT_MS, Transport.MAX_FRAME_BYTES, handler);
    this.onLost = onLost;
  }

  @Override
  public ByteBufAllocator alloc() {
    return ALLOC;
  }

  @Override
  public void send(int nodeId, ByteBuf frame) {
    QueuedConnection connection = connection(nodeId);
    connection.write(frame);
    written(connection);
  }

  /** One connection lookup and one flush mark for the two buffers of a record's frame. */
  @Override
  public void send(int nodeId, ByteBuf header, ByteBuf payload) {
    QueuedConnection connection = connection(nodeId);
    connection.write(header);
    connection.write(payload);
    written(connection);
  }

  @Override
  public void send(int nodeId, ByteBuf frame, WriteListener onWrite) {
    QueuedConnection connection = connection(nodeId);
    connection.write(frame, onWrite);
    written(connection);
  }

  /**
   * The header goes first; the payload's outcome is the frame's (a failed write fails the rest).
   */
  @Override
  public void send(int nodeId, ByteBuf header, ByteBuf payload, WriteListener onWrite) {
    QueuedConnection connection = connection(nodeId);
    connection.write(header);
    connection.write(payload, onWrite);
    written(connection);
  }

  private void written(QueuedConnection connection) {
    if (!dirty.contains(connection)) {
      dirty.add(connection);
    }
    if (!flushScheduled) {
      flushScheduled = true;
      loop.execute(flushTask);
    }
  }

  @Override
  public void flush() {
    flushScheduled = false;
    for (QueuedConnection connection : dirty) {
      connection.flush();
    }
    dirty.clear();
  }

  @Override
  public String connectionState(int nodeId) {
    QueuedConnection connection = connections.get(nodeId);
    return connection == null ? "not connected yet" : connection.state();
  }

  /** Connects to every replica node of the topology ahead of the first request. */
  void connectAll() {
    for (Shard shard : topology.get().shards()) {
      for (int replica : shard.replicaNodeIds()) {
        connection(replica).connect();
      }
    }
  }

  /** Closes connections to nodes that moved or left; new ones are made on next use. */
  void retain(Topology fresh) {
    for (Iterator<Map.Entry<Integer, QueuedConnection>> it = connections.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<Integer, QueuedConnection> entry = it.next();
      NodeAddress now = fresh.nodes().get(entry.getKey());
      if (now == null || !now.equals(entry.getValue().node())) {
        entry.getValue().close();
        it.remove();
        dirty.remove(entry.getValue());
      }
    }
  }

  void closeAll() {
    connections.values().forEach(QueuedConnection::close);
  }

  private QueuedConnection connection(int nodeId) {
    QueuedConnection connection = connections.get(nodeId);
    if (connection == null) {
      connection =
          new QueuedConnection(topology.get().node(nodeId), bootstrap, () -> onLost.accept(nodeId));
      connections.put(nodeId, connection);
    }
    return connection;
  }
}
