package io.flexlog.sequencer;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import io.flexlog.core.net.ConnectionGuard;
import io.flexlog.core.net.Transport;
import io.flexlog.core.protocol.AdminRelay;
import io.flexlog.core.protocol.FrameDecoder;
import io.flexlog.sequencer.net.ParentConnector;
import io.flexlog.sequencer.net.SequencerChannelHandler;
import io.flexlog.sequencer.ordering.IssueGate;
import io.flexlog.sequencer.ordering.JoinMarkStore;
import io.flexlog.sequencer.ordering.NodeRuntime;
import io.flexlog.sequencer.ordering.OrderingService;
import io.flexlog.sequencer.ordering.SequencerInbound;
import io.flexlog.sequencer.ordering.SequencerMetrics;
import io.flexlog.sequencer.ordering.TopologyChange;
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
import io.netty.util.concurrent.DefaultThreadFactory;
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
 * this node's id, forwards order requests for the other colors above its shards up the sequencer
 * tree (connecting to its parent nodes as a child), and serves replicas and child nodes over the
 * data-plane protocol (ORDER_REQUEST, HELLO, SEQUENCER_HELLO, RANGE_REQUEST, METADATA_REQUEST,
 * TAIL_REQUEST, and the admin requests it relays: {@link #adminRelay}). See {@link OrderingService}
 * for the protocol.
 *
 * <pre>{@code
 * try (SequencerNode node = new SequencerNode(config, topology, new SimpleMeterRegistry())) {
 *   int port = node.start();
 *   ...
 *   node.updateTopology(newerTopology); // e.g. after AddColor
 * }
 * }</pre>
 *
 * <p>Durability: {@link #start} makes a new epoch durable (see {@link EpochStore}) before it binds
 * the port, so every SN this instance issues is larger than every SN issued by any earlier instance
 * on the same data directory. The epoch at start is also this instance's incarnation towards its
 * parent nodes: a restarted child is recognised as new, and its range requests are never mistaken
 * for re-sent ones of the earlier process. The join marks its roles take are saved in {@link
 * JoinMarkFile} before they are sent, and loaded again at start.
 *
 * <p>Threading contract: the node runs ONE event-loop thread that accepts connections, owns every
 * connection (inbound and to parents) and all ordering state; requests are therefore processed
 * without locks, in arrival order. {@link #start}, {@link #updateTopology} and {@link #close} may
 * be called from any thread; {@link #epoch} and {@link #port} from any thread.
 */
public final class SequencerNode implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SequencerNode.class);

  private final SequencerConfig config;
  private final MeterRegistry meterRegistry;
  private final long maxCounter;
  private volatile Topology topology;
  private EpochStore epochStore;
  private IssueGate issueGate = IssueGate.ALWAYS;
  private JoinMarkStore sharedMarks;
  private volatile AdminRelay adminRelay = AdminRelay.NONE;
  private EventLoopGroup group;
  private EventLoop loop;
  private ChannelGroup channels;
  private Channel serverChannel;
  private SequencerMetrics metrics;
  private OrderingService service;
  private final List<ParentConnector> connectors = new ArrayList<>();
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
   * Lets {@code gate} decide whether a hosted role may issue SNs (the role leases of the metadata
   * quorum; docs/architecture.md, "Sequencer failover"). Call before {@link #start}; without it
   * every role issues whenever it has work.
   */
  public synchronized void issueGate(IssueGate gate) {
    if (group != null) {
      throw new IllegalStateException("set the issue gate before start");
    }
    this.issueGate = gate;
  }

  /**
   * Keeps the join marks of this node's roles in {@code shared} too (the metadata quorum, so that
   * they follow a role to the node that takes it over; docs/architecture.md#join-marks), besides
   * the node's {@link JoinMarkFile}: a role loads what either holds, and issues nothing after it
   * took a mark until both have it. Call before {@link #start}.
   */
  public synchronized void sharedJoinMarks(JoinMarkStore shared) {
    if (group != null) {
      throw new IllegalStateException("set the shared join mark store before start");
    }
    this.sharedMarks = Objects.requireNonNull(shared, "shared");
  }

  /**
   * Lets {@code relay} serve the admin requests clients send to this node (docs/architecture.md,
   * "Admin requests on the data plane"); until then they are refused ({@link AdminRelay#NONE}). Any
   * thread, any time.
   */
  public void adminRelay(AdminRelay relay) {
    this.adminRelay = Objects.requireNonNull(relay, "relay");
  }

  /**
   * Bumps the durable epoch, binds the data-plane port and starts connecting to parent nodes.
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
    // Read-only, and first: a start refused for a bad marks file has not bumped the epoch yet.
    JoinMarkFile marks = JoinMarkFile.open(config.dataDir(), config.nodeId());
    epochStore = EpochStore.open(config.dataDir());
    group =
        new MultiThreadIoEventLoopGroup(
            1,
            new DefaultThreadFactory("flexlog-sequencer-" + config.nodeId()),
            NioIoHandler.newFactory());
    try {
      bind(marks);
      loop.submit(service::start).syncUninterruptibly();
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
        hostedColorNames(topology));
    return port;
  }

  private void bind(JoinMarkFile marks) throws IOException {
    loop = group.next();
    channels = new DefaultChannelGroup(loop);
    metrics = new SequencerMetrics(meterRegistry, config.nodeId(), epochStore::current);
    service =
        new OrderingService(
            config.nodeId(),
            epochStore.current(),
            topology,
            config.dedupWindow(),
            maxCounter,
            epochStore,
            metrics,
            ByteBufAllocator.DEFAULT,
            new LoopRuntime(),
            null);
    ConnectionGuard guard =
        new ConnectionGuard("sequencer " + config.nodeId(), config.connections());
    service.issueGate(issueGate);
    service.joinMarkStore(sharedMarks == null ? marks : JoinMarkStore.both(marks, sharedMarks));
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(group, group)
            .channel(Transport.serverChannel())
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.RCVBUF_ALLOCATOR, Transport.readSizes())
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    channels.add(ch);
                    ch.pipeline()
                        .addLast(guard.newHandler())
                        .addLast(new FrameDecoder(config.maxFrameBytes()))
                        .addLast(
                            new SequencerChannelHandler(
                                new SequencerInbound(
                                    service,
                                    ch.alloc(),
                                    config.maxRecordBytes(),
                                    request -> adminRelay.relay(request),
                                    loop)));
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

  /** The runtime of the service: the node's event loop, and connectors to parent nodes. */
  private final class LoopRuntime implements NodeRuntime {
    @Override
    public void execute(Runnable task) {
      loop.execute(task);
    }

    @Override
    public void schedule(Runnable task, long delayMs) {
      loop.schedule(task, delayMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public long nanoTime() {
      return System.nanoTime();
    }

    @Override
    public void connectParent(int parentNodeId) {
      ParentConnector connector =
          new ParentConnector(config.nodeId(), parentNodeId, service, loop, config.maxFrameBytes());
      connectors.add(connector);
      connector.start();
    }
  }

  private List<String> hostedColorNames(Topology t) {
    return t.colors().stream()
        .filter(c -> c.sequencerId() == config.nodeId())
        .map(Color::name)
        .toList();
  }

  /**
   * Applies a newer topology (for instance after AddColor): starts the roles of newly hosted
   * colors, routes new colors and shards, connects to new parent nodes. A topology whose version is
   * not larger than the latest one given to this node is ignored. Safe from any thread: the change
   * is handed to the node's event loop and applied between two turns, and the call returns once it
   * is applied; before {@link #start} it replaces the initial topology.
   *
   * @throws IllegalArgumentException naming the problem when the newer topology moves a color or a
   *     shard, drops one, or no longer lists this node as a sequencer node; nothing changes then
   */
  public synchronized void updateTopology(Topology newer) {
    Objects.requireNonNull(newer, "newer");
    Topology latest = topology;
    if (closed || !TopologyChange.isNewer(latest, newer)) {
      return;
    }
    String problem = TopologyChange.problem(latest, newer, config.nodeId());
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    topology = newer;
    if (service != null) {
      OrderingService running = service;
      if (loop.inEventLoop()) {
        running.updateTopology(newer);
      } else {
        // Block until applied: the admin service acknowledges AddColor only once nodes serve it.
        loop.submit(() -> running.updateTopology(newer)).syncUninterruptibly();
      }
    }
  }

  /** The latest topology given to this node (applied, or being handed to its event loop). */
  public Topology topology() {
    return topology;
  }

  /** The version of {@link #topology()}. */
  public long topologyVersion() {
    return topology.version();
  }

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
   * Stops accepting connections and reconnecting to parents, publishes and flushes whatever is
   * batched, closes every connection and stops the event loop. Idempotent; blocks until the loop
   * has terminated.
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
    loop.submit(
            () -> {
              connectors.forEach(ParentConnector::close);
              service.endTurn();
            })
        .syncUninterruptibly();
    LOG.info(
        "sequencer node {} closing in epoch {}, watermarks {}",
        config.nodeId(),
        epochStore.current(),
        loop.submit(service::describeWatermarks).syncUninterruptibly().getNow());
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
