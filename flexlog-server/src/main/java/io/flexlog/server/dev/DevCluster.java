package io.flexlog.server.dev;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.replica.node.ReplicaNode;
import io.flexlog.replica.replication.ReplicaLimits;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.TieredStorageConfig;
import io.flexlog.sequencer.SequencerNode;
import io.flexlog.server.Nodes;
import io.flexlog.server.config.ClusterFile;
import io.flexlog.server.config.NodeSettings;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * An embedded cluster in one process on 127.0.0.1: one sequencer (node 0, color {@code global}) on
 * {@code port} and one shard of three replicas (nodes 1-3) on the next three ports, with data under
 * {@code dataDir}. Restarting on the same directory keeps every record.
 */
public final class DevCluster implements AutoCloseable {
  public static final String HOST = "127.0.0.1";
  public static final int REPLICAS = 3;

  /**
   * What differs between dev clusters.
   *
   * @param pmBytes each replica's PM log capacity
   * @param cacheBytes each replica's off-heap cache budget, 0 for none
   */
  public record Options(
      Path dataDir,
      int port,
      String engine,
      DurabilityMode durability,
      long pmBytes,
      long cacheBytes) {
    /** Options with the default cache budget. */
    public Options(Path dataDir, int port, String engine, DurabilityMode durability, long pmBytes) {
      this(dataDir, port, engine, durability, pmBytes, TieredStorageConfig.DEFAULT_CACHE_BYTES);
    }
  }

  private final Topology topology;
  private final SequencerNode sequencer;
  private final List<ReplicaNode> replicas;

  private DevCluster(Topology topology, SequencerNode sequencer, List<ReplicaNode> replicas) {
    this.topology = topology;
    this.sequencer = sequencer;
    this.replicas = replicas;
  }

  public static Topology topology(int port) {
    List<NodeAddress> nodes = new ArrayList<>();
    nodes.add(new NodeAddress(0, NodeAddress.Kind.SEQUENCER, HOST, port));
    List<Integer> replicaIds = new ArrayList<>();
    for (int i = 1; i <= REPLICAS; i++) {
      nodes.add(new NodeAddress(i, NodeAddress.Kind.REPLICA, HOST, port + i));
      replicaIds.add(i);
    }
    return new Topology(
        1,
        nodes,
        List.of(new Color(Color.GLOBAL_ID, Color.GLOBAL, Color.NO_PARENT, 0)),
        List.of(new Shard(0, Color.GLOBAL_ID, replicaIds)));
  }

  public static DevCluster start(Options options, MeterRegistry registry, PrintStream banner)
      throws Exception {
    Topology topology = topology(options.port());
    int maxRecordBytes = ReplicaLimits.DEFAULT_MAX_RECORD_BYTES;
    SequencerNode sequencer =
        Nodes.startSequencer(
            topology,
            settings(options, 0, options.dataDir().resolve("sequencer-0")),
            maxRecordBytes,
            registry);
    List<ReplicaNode> replicas = new ArrayList<>();
    DevCluster cluster = new DevCluster(topology, sequencer, replicas);
    try {
      for (int i = 1; i <= REPLICAS; i++) {
        replicas.add(
            Nodes.startReplica(
                topology,
                settings(options, i, options.dataDir().resolve("replica-" + i)),
                maxRecordBytes,
                registry,
                banner));
      }
      cluster.awaitConnected(Duration.ofSeconds(10));
    } catch (Exception e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  private static NodeSettings settings(Options options, int nodeId, Path dir) {
    return new NodeSettings(
            nodeId,
            dir,
            options.engine(),
            options.durability(),
            options.pmBytes(),
            ClusterFile.defaultChunk(options.pmBytes()),
            ReplicaLimits.DEFAULT_READ_HOLD,
            0)
        .withCacheBytes(options.cacheBytes());
  }

  private void awaitConnected(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!replicas.stream().allMatch(ReplicaNode::isConnected)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("replicas did not connect to the sequencer in " + timeout);
      }
      Thread.sleep(10);
    }
  }

  public Topology topology() {
    return topology;
  }

  public String bootstrap() {
    return HOST + ":" + sequencer.port();
  }

  public List<ReplicaNode> replicas() {
    return replicas;
  }

  @Override
  public void close() {
    for (ReplicaNode replica : replicas) {
      replica.close();
    }
    if (sequencer != null) {
      sequencer.close();
    }
  }
}
