package io.flexlog.server;

import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Topology;
import io.flexlog.replica.node.ReplicaNode;
import io.flexlog.replica.replication.ReplicaLimits;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.replica.storage.SyncPointFile;
import io.flexlog.replica.storage.TrimmedTokenFile;
import io.flexlog.replica.storage.pm.LlplLogStorage;
import io.flexlog.replica.storage.tier.TieredStorageConfig;
import io.flexlog.sequencer.SequencerConfig;
import io.flexlog.sequencer.SequencerNode;
import io.flexlog.sequencer.ordering.IssueGate;
import io.flexlog.sequencer.ordering.JoinMarkStore;
import io.flexlog.server.config.DataSize;
import io.flexlog.server.config.NodeSettings;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.PrintStream;

/** Starts sequencer and replica nodes from a topology and node settings. */
public final class Nodes {
  private Nodes() {}

  public static SequencerNode startSequencer(
      Topology topology, NodeSettings settings, int maxRecordBytes, MeterRegistry registry)
      throws IOException {
    return startSequencer(topology, settings, maxRecordBytes, registry, IssueGate.ALWAYS);
  }

  /** As above, with the gate that decides when its roles may issue SNs (role leases). */
  public static SequencerNode startSequencer(
      Topology topology,
      NodeSettings settings,
      int maxRecordBytes,
      MeterRegistry registry,
      IssueGate gate)
      throws IOException {
    return startSequencer(topology, settings, maxRecordBytes, registry, gate, null);
  }

  /**
   * As above, also keeping its roles' join marks in {@code sharedMarks} (the metadata quorum, with
   * failover), or only in its data directory when null.
   */
  public static SequencerNode startSequencer(
      Topology topology,
      NodeSettings settings,
      int maxRecordBytes,
      MeterRegistry registry,
      IssueGate gate,
      JoinMarkStore sharedMarks)
      throws IOException {
    NodeAddress self = topology.node(settings.nodeId());
    SequencerNode node =
        new SequencerNode(
            SequencerConfig.builder()
                .nodeId(self.id())
                .host(self.host())
                .port(self.port())
                .dataDir(settings.dataDir())
                .maxRecordBytes(maxRecordBytes)
                .connections(settings.connectionLimits(maxRecordBytes))
                .build(),
            topology,
            registry);
    node.issueGate(gate);
    if (sharedMarks != null) {
      node.sharedJoinMarks(sharedMarks);
    }
    node.start();
    return node;
  }

  public static ReplicaNode startReplica(
      Topology topology,
      NodeSettings settings,
      int maxRecordBytes,
      MeterRegistry registry,
      PrintStream banner)
      throws InterruptedException {
    NodeAddress self = topology.node(settings.nodeId());
    LogStorage storage = openStorage(settings, registry, banner);
    ReplicaNode node;
    try {
      node =
          new ReplicaNode(
              new ReplicaNode.Config(
                  self.id(),
                  self.host(),
                  self.port(),
                  new ReplicaLimits(
                      maxRecordBytes,
                      settings.readHold(),
                      ReplicaLimits.DEFAULT_DEDUP_WINDOW,
                      settings.subscribeHeartbeat()),
                  settings.atomic(),
                  settings.connectionLimits(maxRecordBytes)),
              topology,
              storage,
              new SyncPointFile(settings.dataDir(), self.id(), storage.durability()),
              new TrimmedTokenFile(settings.dataDir(), self.id(), storage.durability()),
              registry);
    } catch (RuntimeException e) {
      storage.close();
      throw e;
    }
    node.start();
    return node;
  }

  /** As {@link #openStorage(NodeSettings, MeterRegistry, PrintStream)}, with private meters. */
  public static LogStorage openStorage(NodeSettings settings, PrintStream banner) {
    return openStorage(settings, new SimpleMeterRegistry(), banner);
  }

  /**
   * Opens the replica's storage: the PM log (engine {@code auto} picks llpl where libpmemobj loads
   * and the durability mode can be honoured in this process, else the mapped-file engine, saying
   * why in one line) inside the tiered engine (off-heap cache, SSD segments), with its meters
   * tagged by node id. Prints one line naming the engine, durability and tier sizes.
   */
  public static LogStorage openStorage(
      NodeSettings settings, MeterRegistry registry, PrintStream banner) {
    String engine = settings.engine();
    if (NodeSettings.AUTO.equals(engine)) {
      engine = StorageEngines.defaultEngine();
      String notice = StorageEngines.fallbackNotice();
      if (notice != null) {
        banner.println("notice: " + notice);
      } else if (settings.durability() == DurabilityMode.PROCESS && !pmemForced()) {
        engine = StorageEngines.MAPPED;
        banner.println(
            "notice: storage engine 'mapped' instead of 'llpl': durability=process needs "
                + LlplLogStorage.PMEM_FORCE_ENV
                + "=1 in the environment (bin/flexlog sets it)");
      }
    }
    TieredStorageConfig tiers = settings.tieredStorage();
    LogStorage storage =
        StorageEngines.openTiered(
            engine,
            settings.dataDir(),
            settings.pmBytes(),
            settings.chunkBytes(),
            settings.durability(),
            tiers,
            registry,
            Tags.of("node", Integer.toString(settings.nodeId())));
    banner.printf(
        "replica %d storage: engine=%s durability=%s pm-bytes=%s chunk-bytes=%s cache-bytes=%s"
            + " pm-high-watermark=%s segment-bytes=%s data=%s segments=%s%n",
        settings.nodeId(),
        storage.engineName(),
        storage.durability().configName(),
        DataSize.format(settings.pmBytes()),
        DataSize.format(settings.chunkBytes()),
        DataSize.format(tiers.cacheBytes()),
        tiers.pmHighWatermark(),
        DataSize.format(tiers.segmentBytes()),
        settings.dataDir().toAbsolutePath(),
        tiers.segmentDir().toAbsolutePath());
    String shortfall = capacityShortfall(settings.pmBytes(), settings.chunkBytes(), storage);
    if (shortfall != null) {
      banner.println("notice: " + shortfall);
    }
    return storage;
  }

  /**
   * Why the PM log holds other than {@code pm-bytes}, or null when it holds exactly that: the llpl
   * engine's own metadata takes part of its heap, an existing log keeps the size it was created
   * with, and capacity comes in whole chunks.
   */
  static String capacityShortfall(long pmBytes, long chunkBytes, LogStorage storage) {
    long capacity = storage.capacityBytes();
    if (capacity == pmBytes) {
      return null;
    }
    return "the PM log holds "
        + DataSize.format(capacity)
        + " ("
        + capacity / chunkBytes
        + " chunks of "
        + DataSize.format(chunkBytes)
        + "), "
        + (capacity < pmBytes ? "less" : "more")
        + " than pm-bytes="
        + DataSize.format(pmBytes)
        + (capacity < pmBytes
            ? ": "
                + storage.engineName()
                + (StorageEngines.LLPL.equals(storage.engineName())
                    ? "'s heap metadata takes the rest, or the log was created smaller"
                    : " keeps the chunks it was created with")
                + "; raise pm-bytes (a new llpl log) to get more"
            : ": the log was created larger and keeps its chunks");
  }

  static boolean pmemForced() {
    return "1".equals(System.getenv(LlplLogStorage.PMEM_FORCE_ENV));
  }
}
