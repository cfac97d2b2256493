package io.flexlog.sequencer;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.FrameDecoder;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A sequencer node: hosts the ordering role of every color whose {@link Color#sequencerId()} is
 * this node's id and serves replicas over the data-plane protocol (ORDER_REQUEST, HELLO,
 * METADATA_REQUEST).
 *
 * <pre>{@code
 * try (SequencerNode node = new SequencerNode(config, topology, new SimpleMeterRegistry())) {
 *   int port = node.start();
 *   ...
 * }
 * }</pre>
 *
 * <p>Durability: {@link #start} makes a new epoch durable (see {@link EpochStore}) before it binds
 * the port, so every SN this instance issues is larger than every SN issued by any earlier instance
 * on the same data directory.
 *
 * <p>Threading contract: the node runs ONE event-loop thread that accepts connections and owns
 * every connection and all ordering state; requests are therefore processed without locks, in
 * arrival order. {@link #start} and {@link #close} may be called from any thread (not
 * concurrently); {@link #epoch} and {@link #port} from any thread.
 */
public final class SequencerNode implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SequencerNode.class);

  private final SequencerConfig config;
  private volatile Topology topology;
  private final MeterRegistry meterRegistry;
  private final long maxCounter;
  private EpochStore epochStore;
  private EventLoopGroup group;
  private ChannelGroup channels;
  private Channel serverChannel;
  private SequencerMetrics metrics;
  private OrderingService service;
  private volatile int port = -1;
  private boolean closed;

  /**
   * @throws IllegalArgumentException when the config's node id is not a sequencer of the topology
   */
  public SequencerNode(SequencerConfig config, Topology topology, MeterRegistry meterRegistry) {
    this(config, topology, meterRegistry, Sn.MAX_COUNTER);
  }

  /** For tests: {@code maxCounter} is the last counter value of an epoch before it moves on. */
  SequencerNode(
      SequencerConfig config, Topology topology, MeterRegistry meterRegistry, long maxCounter) {
    this.config = Objects.requireNonNull(config, "config");
    this.topology = Objects.requireNonNull(topology, "topology");
    this.meterRegistry = Objects.requireNonNull(meterRegistry, "meterRegistry");
    this.maxCounter = maxCounter;
    NodeAddress self = topology.nodes().get(config.nodeId());
    if (self == null || self.kind() != NodeAddress.Kind.SEQUENCER) {
      throw new IllegalArgumentException(
          SequencerConfig.NODE_ID
              + " "
              + config.nodeId()
              + " is not a sequencer node of topology version "
              + topology.version());
    }
  }

  /**
   * Bumps the durable epoch, then binds the data-plane port.
   *
   * @return the bound port (the ephemeral one when the config says 0)
   * @throws IOException when the epoch file is corrupt or unwritable (the message names the file),
   *     or the port cannot be bound; the node is then not running
   * @throws IllegalStateException when called twice or after {@link #close}
   */
  public synchronized int start() throws IOException {
    if (group != null || closed) {
      throw new IllegalStateException("sequencer node " + config.nodeId() + " already started");
    }
    epochStore = EpochStore.open(config.dataDir());
    group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try {
      bind();
    } catch (IOException | RuntimeException e) {
      // A node that failed to start is spent: close() has nothing left to release.
      shutdownGroup();
      closed = true;
      throw e;
    }
    LOG.info(
        "sequencer node {} listening on {}:{} in epoch {}, hosting {}",
        config.nodeId(),
        config.host(),
        port,
        epochStore.current(),
        hostedColorNames());
    return port;
  }

  private void bind() throws IOException {
    EventLoop loop = group.next();
    channels = new DefaultChannelGroup(loop);
    metrics = new SequencerMetrics(meterRegistry, config.nodeId(), epochStore::current);
    ReplicaRegistry registry = new ReplicaRegistry(topology);
    Broadcaster broadcaster = new Broadcaster(ByteBufAllocator.DEFAULT, registry);
    service =
        new OrderingService(
            config.nodeId(), topology, hostedRoles(topology), metrics, broadcaster, registry, loop);
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(group, group)
            .channel(NioServerSocketChannel.class)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    channels.add(ch);
                    ch.pipeline()
                        .addLast(new FrameDecoder(config.maxFrameBytes()))
                        .addLast(new SequencerChannelHandler(service, config.maxRecordBytes()));
                  }
                });
    try {
      serverChannel = bootstrap.bind(config.host(), config.port()).sync().channel();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while binding " + config.host() + ":" + config.port());
    } catch (Exception e) {
      throw new IOException(
          "cannot bind " + config.host() + ":" + config.port() + ": " + e.getMessage(), e);
    }
    port = ((InetSocketAddress) serverChannel.localAddress()).getPort();
  }

  private List<OrderingRole> hostedRoles(Topology topology) {
    List<OrderingRole> roles = new ArrayList<>();
    for (Color color : topology.colors()) {
      if (color.sequencerId() == config.nodeId()) {
        roles.add(newRole(topology, color));
      }
    }
    return roles;
  }

  private OrderingRole newRole(Topology topology, Color color) {
    return new OrderingRole(
        color,
        topology.shardsInSubtree(color.id()),
        config.dedupWindow(),
        epochStore.current(),
        maxCounter,
        epochStore);
  }

  /**
   * Applies a newer topology (AddColor): starts the roles of colors newly placed on this node, in
   * the node's current durable epoch, and lets existing roles accept order requests from shards
   * that joined their subtree; METADATA_RESPONSE serves the new topology from then on. A topology
   * whose version is not larger than the current one is ignored. Colors are never removed or moved
   * between nodes by a topology change.
   *
   * <p>Blocks until the node's event loop has applied it; do not call it from that loop. Before
   * {@link #start} it only replaces the topology the node will start with.
   *
   * @throws IllegalArgumentException when this node is no sequencer node of {@code next}
   */
  public synchronized void updateTopology(Topology next) {
    Objects.requireNonNull(next, "next");
    NodeAddress self = next.nodes().get(config.nodeId());
    if (self == null || self.kind() != NodeAddress.Kind.SEQUENCER) {
      throw new IllegalArgumentException(
          "node " + config.nodeId() + " is not a sequencer node of topology " + next.version());
    }
    if (next.version() <= topology.version() || closed) {
      return;
    }
    if (group == null) {
      topology = next;
      return;
    }
    group
        .next()
        .submit(
            () -> {
              List<OrderingRole> added = new ArrayList<>();
              for (Color color : next.colors()) {
                if (color.sequencerId() == config.nodeId() && !service.hosts(color.id())) {
                  added.add(newRole(next, color));
                }
              }
              service.updateTopology(next, added);
              if (!added.isEmpty()) {
                LOG.info(
                    "sequencer node {} applied topology version {}: now also hosting {}",
                    config.nodeId(),
                    next.version(),
                    added.stream().map(r -> r.color().name()).toList());
              }
            })
        .syncUninterruptibly();
    topology = next;
  }

  /** The topology version this node serves. */
  public long topologyVersion() {
    return topology.version();
  }

  private List<String> hostedColorNames() {
    return topology.colors().stream()
        .filter(c -> c.sequencerId() == config.nodeId())
        .map(Color::name)
        .toList();
  }

  /** This node's id in the topology. */
  public int nodeId() {
    return config.nodeId();
  }

  /** The bound data-plane port, or -1 before {@link #start}. */
  public int port() {
    return port;
  }

  /**
   * The node's latest durable epoch: the one of this start, or larger after a counter overflow.
   *
   * @throws IllegalStateException before {@link #start}
   */
  public int epoch() {
    EpochStore store = epochStore;
    if (store == null) {
      throw new IllegalStateException("sequencer node " + config.nodeId() + " is not started");
    }
    return store.current();
  }

  /**
   * Stops accepting connections, publishes and flushes whatever is batched, closes every connection
   * and stops the event loop. Idempotent; blocks until the loop has terminated.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (group == null) {
      return;
    }
    serverChannel.close().syncUninterruptibly();
    group.next().submit(service::endTurn).syncUninterruptibly();
    LOG.info(
        "sequencer node {} closing in epoch {}, watermarks {}",
        config.nodeId(),
        epochStore.current(),
        group.next().submit(service::describeWatermarks).syncUninterruptibly().getNow());
    channels.close().syncUninterruptibly();
    shutdownGroup();
  }

  private void shutdownGroup() {
    group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
    if (metrics != null) {
      metrics.close();
    }
  }
}
