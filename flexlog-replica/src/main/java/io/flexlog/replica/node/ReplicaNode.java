package io.flexlog.replica.node;

import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Topology;
import io.flexlog.core.net.ConnectionGuard;
import io.flexlog.core.net.ConnectionLimits;
import io.flexlog.core.net.Transport;
import io.flexlog.core.protocol.AdminRelay;
import io.flexlog.core.protocol.FrameDecoder;
import io.flexlog.replica.atomic.AtomicAppends;
import io.flexlog.replica.atomic.AtomicConfig;
import io.flexlog.replica.atomic.PeerLinks;
import io.flexlog.replica.replication.EventExecutorRuntime;
import io.flexlog.replica.replication.OrderRequestBatch;
import io.flexlog.replica.replication.ReplicaLimits;
import io.flexlog.replica.replication.ReplicationEngine;
import io.flexlog.replica.replication.RoleMoves;
import io.flexlog.replica.replication.SequencerGateway;
import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.SyncPointStore;
import io.flexlog.replica.storage.TrimmedTokenStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.agrona.collections.Int2ObjectHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replica node: serves appends and reads of the shards the topology places on it, on one Netty
 * event loop that owns all of its state (the {@link ReplicationEngine}, the log, the sequencer
 * links). The log is opened by the caller and closed by {@link #close()}.
 *
 * <p>It has one {@link SequencerLink} per sequencer node that hosts the color of one of its shards.
 * {@link #updateTopology} (AddColor) adds shards and links while the node runs. Public methods may
 * be called from any thread except the node's event loop; they hand work to the loop.
 *
 * <pre>{@code
 * try (ReplicaNode node = new ReplicaNode(config, topology, storage, registry)) {
 *   node.start();
 *   ...
 * }
 * }</pre>
 */
public final class ReplicaNode implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaNode.class);

  /** A client connection turns unwritable above this many bytes queued, writable below the low. */
  static final int WRITE_BUFFER_HIGH_BYTES = 1 << 20;

  static final int WRITE_BUFFER_LOW_BYTES = 512 << 10;

  /**
   * Where a replica node listens and what it enforces.
   *
   * @param nodeId this node's id in the topology
   * @param bindHost the address to listen on (127.0.0.1 for local clusters)
   * @param port the port, 0 for an ephemeral one (see {@link #port()})
   * @param atomic the settings of atomic appends ({@code atomic.*})
   */
  public record Config(
      int nodeId,
      String bindHost,
      int port,
      ReplicaLimits limits,
      AtomicConfig atomic,
      ConnectionLimits connections) {
    /** With the default settings of atomic appends. */
    public Config(int nodeId, String bindHost, int port, ReplicaLimits limits) {
      this(nodeId, bindHost, port, limits, AtomicConfig.defaults());
    }

    /** With the default connection limits. */
    public Config(
        int nodeId, String bindHost, int port, ReplicaLimits limits, AtomicConfig atomic) {
      this(nodeId, bindHost, port, limits, atomic, ConnectionLimits.defaults());
    }
  }

  private final Config config;
  private final LogStorage storage;
  private final SyncPointStore syncPoints;
  private final TrimmedTokenStore trimmedTokens;
  private final EventLoopGroup group;
  private final EventLoop loop;
  private final ReplicationEngine engine;
  private final ReplicaAdapter adapter;
  private final PeerLinks peers;
  private final AtomicAppends atomic;
  private final Int2ObjectHashMap<SequencerLink> linksBySequencer = new Int2ObjectHashMap<>();
  private final Map<Integer, SequencerLink> linksByShard = new HashMap<>();
  private Channel serverChannel;
  private volatile long topologyVersion;

  /** Accepted client connections, closed explicitly on close so that clients notice at once. */
  private final ChannelGroup clients;

  public ReplicaNode(Config config, Topology topology, LogStorage storage, MeterRegistry registry) {
    this(config, topology, storage, SyncPointStore.NONE, registry);
  }

  /**
   * With {@code syncPoints}, where the node keeps its sync points and join marks across restarts
   * (docs/architecture.md#sync-phase); closed by {@link #close()}, like the log.
   */
  public ReplicaNode(
      Config config,
      Topology topology,
      LogStorage storage,
      SyncPointStore syncPoints,
      MeterRegistry registry) {
    this(config, topology, storage, syncPoints, TrimmedTokenStore.NONE, registry);
  }

  /**
   * With {@code syncPoints} and {@code trimmedTokens}, where the node keeps the tokens of the
   * records it trimmed (docs/architecture.md#retention, "Trimmed tokens"); both closed by {@link
   * #close()}, like the log.
   */
  public ReplicaNode(
      Config config,
      Topology topology,
      LogStorage storage,
      SyncPointStore syncPoints,
      TrimmedTokenStore trimmedTokens,
      MeterRegistry registry) {
    NodeAddress self = topology.node(config.nodeId());
    if (self.kind() != NodeAddress.Kind.REPLICA) {
      throw new IllegalArgumentException("node " + config.nodeId() + " is not a replica node");
    }
    this.config = config;
    this.storage = storage;
    this.syncPoints = syncPoints;
    this.trimmedTokens = trimmedTokens;
    this.topologyVersion = topology.version();
    this.group = Transport.eventLoops("flexlog-replica-" + config.nodeId(), 1);
    this.loop = group.next();
    this.clients = new DefaultChannelGroup("replica-" + config.nodeId() + "-clients", loop);
    storage.wakeOwnerWith(loop); // e.g. finished SSD segments are applied on this loop
    this.engine =
        new ReplicationEngine(
            config.nodeId(),
            topology,
            storage,
            config.limits(),
            new Gateway(),
            new EventExecutorRuntime(loop),
            registry);
    this.peers = new PeerLinks(loop, engine::topology);
    this.atomic =
        new AtomicAppends(
            config.nodeId(),
            engine,
            storage,
            config.limits(),
            new EventExecutorRuntime(loop),
            peers,
            config.atomic(),
            registry);
    this.adapter = new ReplicaAdapter(engine, atomic::onPeerFrame, loop);
    peers.deliverTo(adapter::onPeerFrame);
    engine.attachPeers(peers);
    engine.attachStaging(atomic);
    engine.attachSyncPoints(syncPoints);
    engine.attachTrimmedTokens(trimmedTokens);
  }

  /** Recovers the log, starts listening and connects to the sequencers. */
  public void start() throws InterruptedException {
    run(
        () -> {
          engine.recover();
          engine.startHeartbeats();
        });
    ConnectionGuard guard = new ConnectionGuard("replica " + config.nodeId(), config.connections());
    ServerBootstrap server =
        new ServerBootstrap()
            .group(group, group)
            .channel(Transport.serverChannel())
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.RCVBUF_ALLOCATOR, Transport.readSizes())
            // Room for a few subscription batches per connection before it turns unwritable
            // (Netty's default of 64 KiB is a quarter batch:
            // docs/architecture.md#flow-control-credits).
            .childOption(
                ChannelOption.WRITE_BUFFER_WATER_MARK,
                new WriteBufferWaterMark(WRITE_BUFFER_LOW_BYTES, WRITE_BUFFER_HIGH_BYTES))
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    clients.add(ch);
                    ch.pipeline()
                        .addLast(
                            guard.newHandler(),
                            new FrameDecoder(Transport.MAX_FRAME_BYTES),
                            new ReplicaServerHandler(adapter, ch));
                  }
                });
    serverChannel = server.bind(config.bindHost(), config.port()).sync().channel();
    run(() -> connectSequencers(Set.of()));
    LOG.info(
        "replica node {} serving shards {} on {}:{}",
        config.nodeId(),
        java.util.Arrays.toString(engine.hostedShardIds()),
        config.bindHost(),
        port());
  }

  /**
   * Makes sure there is one link per sequencer node that hosts the color of a hosted shard, each
   * speaking for exactly the hosted shards attached to colors of that node: new links connect,
   * existing links that gained shards, or whose node is the new leader of a role that moved ({@code
   * newLeaders}, see {@link RoleMoves}), say HELLO again.
   */
  private void connectSequencers(Set<Integer> newLeaders) {
    Map<Integer, List<Integer>> shardsBySequencer = new TreeMap<>();
    for (int shardId : engine.hostedShardIds()) {
      shardsBySequencer
          .computeIfAbsent(engine.sequencerOf(shardId), k -> new ArrayList<>())
          .add(shardId);
    }
    shardsBySequencer.forEach(
        (sequencerId, shardList) -> {
          int[] shards = shardList.stream().mapToInt(Integer::intValue).toArray();
          SequencerLink link = linksBySequencer.get(sequencerId);
          if (link == null) {
            link =
                new SequencerLink(
                    config.nodeId(), engine.topology().node(sequencerId), shards, adapter, loop);
            linksBySequencer.put(sequencerId, link);
            link.connect();
          } else {
            link.updateShards(shards, newLeaders.contains(sequencerId));
          }
          for (int shard : shards) {
            linksByShard.put(shard, link);
          }
        });
    linksBySequencer.forEach(
        (sequencerId, link) -> {
          if (!shardsBySequencer.containsKey(sequencerId)) {
            link.forgetShards();
          }
        });
  }

  /**
   * Applies a newer topology (AddColor): hosts the shards it newly places on this node, connects to
   * sequencer nodes that now order one of this node's shards and says HELLO again on links that
   * gained shards; METADATA_RESPONSE serves the new topology from then on. A topology whose version
   * is not larger than the current one is ignored.
   *
   * <p>Blocks until the node's event loop has applied it; do not call it from that loop.
   *
   * @throws IllegalArgumentException when this node is no replica node of {@code next}
   */
  public void updateTopology(Topology next) throws InterruptedException {
    NodeAddress self = next.nodes().get(config.nodeId());
    if (self == null || self.kind() != NodeAddress.Kind.REPLICA) {
      throw new IllegalArgumentException(
          "node " + config.nodeId() + " is not a replica node of topology " + next.version());
    }
    run(
        () -> {
          Topology before = engine.topology();
          int[] added = engine.updateTopology(next);
          topologyVersion = engine.topology().version();
          if (serverChannel != null) {
            connectSequencers(
                RoleMoves.newLeaders(before, engine.topology(), engine.hostedShardIds()));
          }
          if (added.length > 0) {
            LOG.info(
                "replica node {} applied topology version {}: now also hosting shards {}",
                config.nodeId(),
                next.version(),
                java.util.Arrays.toString(added));
          }
        });
  }

  /**
   * Lets {@code relay} serve the admin requests clients send to this node (docs/architecture.md,
   * "Admin requests on the data plane"); until then they are refused ({@link AdminRelay#NONE}). Any
   * thread, any time.
   */
  public void adminRelay(AdminRelay relay) {
    adapter.adminRelay(relay);
  }

  /** The topology version this node serves; from any thread. */
  public long topologyVersion() {
    return topologyVersion;
  }

  /** The ids of the sequencer nodes this node has links to, for tests and logs. */
  public int[] sequencerLinks() throws InterruptedException {
    int[][] result = new int[1][];
    run(
        () ->
            result[0] =
                linksBySequencer.keySet().stream().mapToInt(Integer::intValue).sorted().toArray());
    return result[0];
  }

  /** This node's id in the topology. */
  public int nodeId() {
    return config.nodeId();
  }

  public int port() {
    return ((InetSocketAddress) serverChannel.localAddress()).getPort();
  }

  /**
   * Fault injection for tests: while {@code lose} returns true, a client that would get the result
   * of an atomic append from this node has its connection closed instead (see {@link
   * AtomicAppends#loseAnswersWhile}). Any thread.
   */
  public void loseAtomicAnswersWhile(java.util.function.BooleanSupplier lose) {
    atomic.loseAnswersWhile(lose);
  }

  /** True once every sequencer link is up; for tests and the dev cluster's readiness line. */
  public boolean isConnected() {
    try {
      return loop.submit(
              () -> linksBySequencer.values().stream().allMatch(SequencerLink::isConnected))
          .get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      return false;
    }
  }

  @Override
  public void close() {
    try {
      run(
          () -> {
            engine.stopHeartbeats();
            linksBySequencer.values().forEach(SequencerLink::close);
            atomic.close();
            peers.close();
            if (serverChannel != null) {
              serverChannel.close();
            }
            clients.close();
            engine.saveSyncPoints();
          });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    storage.close();
    syncPoints.close();
    trimmedTokens.close();
    LOG.info("replica node {} stopped", config.nodeId());
  }

  private void run(Runnable task) throws InterruptedException {
    try {
      loop.submit(task).get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  private final class Gateway implements SequencerGateway {
    @Override
    public void send(OrderRequestBatch batch, int replicaNodeId) {
      SequencerLink link = linksByShard.get(batch.shardId);
      if (link != null) {
        link.send(batch);
      }
    }

    @Override
    public void flush() {
      linksBySequencer.values().forEach(SequencerLink::flush);
    }
  }
}
