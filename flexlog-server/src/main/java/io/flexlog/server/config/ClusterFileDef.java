package io.flexlog.server.config;

import io.flexlog.core.config.ConfigDef;
import io.flexlog.core.config.ConfigException;
import io.flexlog.core.config.ConfigKey;
import io.flexlog.core.config.ConfigKey.Importance;
import io.flexlog.core.config.ConfigValues;
import io.flexlog.core.config.DataSize;
import io.flexlog.core.config.Validator;
import io.flexlog.core.net.ConnectionLimits;
import io.flexlog.core.net.Transport;
import io.flexlog.replica.atomic.AtomicConfig;
import io.flexlog.replica.replication.ReplicaLimits;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.replica.storage.tier.TieredStorageConfig;
import io.flexlog.server.control.quorum.QuorumConfig;
import io.flexlog.server.control.quorum.RoleLeaseKeeper;
import java.time.Duration;
import java.util.List;

/**
 * The registries of the cluster file ({@link ClusterFile}): the scalar keys of its {@code cluster:}
 * section and every key of its {@code node:} section, each with its type, default, rule and doc, in
 * the file's dashed style. {@link NodeSettings}, {@link AtomicConfig}, {@link TieredStorageConfig}
 * and {@link ReplicaLimits} are built from values these registries parsed and validated, so an
 * error names the key the user wrote, never an internal name. {@code docs/configuration.md} is
 * generated from them.
 */
public final class ClusterFileDef {
  /**
   * The scalar keys of {@code cluster:} (its lists {@code nodes}, {@code colors}, {@code shards}
   * are the topology, read by {@link ClusterFile}).
   */
  public static final ConfigDef CLUSTER = ConfigDef.section("cluster");

  /** The keys of {@code node:}: the settings of the node process that reads the file. */
  public static final ConfigDef NODE = ConfigDef.section("node");

  public static final ConfigKey<Long> MAX_RECORD_BYTES =
      CLUSTER.define(
          ConfigKey.dataSize("max-record-bytes", (long) ReplicaLimits.DEFAULT_MAX_RECORD_BYTES)
              .validator(Validator.between(1, Integer.MAX_VALUE))
              .importance(Importance.HIGH)
              .doc(
                  "The largest record payload the cluster accepts; larger appends fail with"
                      + " RecordTooLargeException. Announced to clients by the sequencers."));

  public static final ConfigKey<Duration> METADATA_TIMEOUT =
      CLUSTER.define(
          ConfigKey.duration("metadata-timeout-ms", QuorumConfig.DEFAULT_REQUEST_TIMEOUT)
              .validator(Validator.positiveDuration())
              .doc(
                  "How long an admin call (AddColor, colors list) waits for a metadata quorum"
                      + " leader before it fails with METADATA_UNAVAILABLE."));

  public static final ConfigKey<Long> METADATA_SNAPSHOT_ENTRIES =
      CLUSTER.define(
          ConfigKey.longKey("metadata-snapshot-entries", QuorumConfig.DEFAULT_SNAPSHOT_ENTRIES)
              .validator(Validator.between(1, Integer.MAX_VALUE))
              .importance(Importance.LOW)
              .doc(
                  "Committed metadata changes after which each quorum node snapshots the"
                      + " metadata and purges its Raft log up to the snapshot."));

  public static final ConfigKey<Boolean> SEQUENCER_FAILOVER =
      CLUSTER.define(
          ConfigKey.bool("sequencer-failover", null)
              .defaultDoc(
                  "true when at least three sequencer nodes and no other sequencer node form the"
                      + " metadata quorum")
              .importance(Importance.HIGH)
              .doc(
                  "Whether the sequencer nodes of the metadata quorum hold each color's role under"
                      + " a lease and take over a role whose leader's lease lapsed (a larger role"
                      + " epoch, published as a new topology version). Needs a metadata quorum"
                      + " that holds every sequencer node (they are the backups). On by default"
                      + " when the quorum has three or more sequencer nodes (a leader and two"
                      + " backups for every role); false keeps every role on its configured"
                      + " node."));

  public static final ConfigKey<Duration> ROLE_HEARTBEAT =
      CLUSTER.define(
          ConfigKey.duration("role-heartbeat-ms", RoleLeaseKeeper.Timing.DEFAULT.heartbeat())
              .validator(Validator.positiveDuration())
              .importance(Importance.LOW)
              .doc("With sequencer-failover: how often a role's leader renews its lease."));

  public static final ConfigKey<Duration> ROLE_LEASE =
      CLUSTER.define(
          ConfigKey.duration("role-lease-ms", RoleLeaseKeeper.Timing.DEFAULT.lease())
              .validator(Validator.positiveDuration())
              .importance(Importance.LOW)
              .doc(
                  "With sequencer-failover: how long backups wait for a renewal before one takes"
                      + " the role; the leader stops issuing SNs 100 ms (or a fifth of it, if"
                      + " less) earlier. At least two heartbeats."));

  public static final ConfigKey<Integer> ID =
      NODE.define(
          ConfigKey.integer("id", null)
              .importance(Importance.HIGH)
              .doc("This node's id among cluster.nodes. Required unless --node-id is given."));

  public static final ConfigKey<String> DATA_DIR =
      NODE.define(
          ConfigKey.string("data-dir", null)
              .defaultDoc("flexlog-data/node-<id>")
              .importance(Importance.HIGH)
              .doc("The node's data directory (log, epoch file). --data overrides it."));

  public static final ConfigKey<String> ENGINE =
      NODE.define(
          ConfigKey.oneOf(
                  "engine",
                  NodeSettings.AUTO,
                  List.of(NodeSettings.AUTO, StorageEngines.LLPL, StorageEngines.MAPPED))
              .importance(Importance.HIGH)
              .doc(
                  "The replica's PM log engine: auto picks llpl where libpmemobj loads and the"
                      + " durability can be honoured, else the mapped-file engine. --engine"
                      + " overrides it."));

  public static final ConfigKey<String> DURABILITY =
      NODE.define(
          ConfigKey.oneOf("durability", "process", List.of("pmem", "process", "fsync"))
              .importance(Importance.HIGH)
              .doc(
                  "What an acknowledged entry survives: pmem and fsync a machine crash, process"
                      + " a crash of the process. --durability overrides it."));

  public static final ConfigKey<Long> PM_BYTES =
      NODE.define(
          ConfigKey.dataSize("pm-bytes", NodeSettings.DEFAULT_PM_BYTES)
              .importance(Importance.HIGH)
              .doc("The replica's PM log capacity, at least one chunk. --pm-bytes overrides it."));

  public static final ConfigKey<Long> CHUNK_BYTES =
      NODE.define(
          ConfigKey.dataSize("chunk-bytes", null)
              .defaultDoc(
                  DataSize.format(StorageEngines.DEFAULT_CHUNK_BYTES)
                      + ", halved (down to 1MiB) until pm-bytes holds 16 chunks")
              .importance(Importance.LOW)
              .doc("The size of one PM log chunk, the unit in which PM is tiered and reused."));

  public static final ConfigKey<Long> CACHE_BYTES =
      NODE.define(
          ConfigKey.dataSize("cache-bytes", TieredStorageConfig.DEFAULT_CACHE_BYTES)
              .validator(
                  Validator.of(
                      b -> b == 0 || b >= TieredStorageConfig.MIN_CACHE_BYTES,
                      "must be 0 (no cache) or at least "
                          + TieredStorageConfig.MIN_CACHE_BYTES
                          + " bytes",
                      "0 or >= " + DataSize.format(TieredStorageConfig.MIN_CACHE_BYTES)))
              .doc("The off-heap record cache's budget; 0 for no cache."));

  public static final ConfigKey<Double> PM_HIGH_WATERMARK =
      NODE.define(
          ConfigKey.decimal("pm-high-watermark", TieredStorageConfig.DEFAULT_PM_HIGH_WATERMARK)
              .validator(
                  Validator.of(f -> f > 0 && f <= 1, "must be a fraction in (0, 1]", "(0, 1]"))
              .doc(
                  "The fraction of PM in use above which the oldest chunks move to SSD segments."));

  public static final ConfigKey<Long> SEGMENT_BYTES =
      NODE.define(
          ConfigKey.dataSize("segment-bytes", TieredStorageConfig.DEFAULT_SEGMENT_BYTES)
              .validator(
                  Validator.of(
                      b ->
                          b >= TieredStorageConfig.MIN_SEGMENT_BYTES
                              && b <= TieredStorageConfig.MAX_SEGMENT_BYTES,
                      "must be between "
                          + TieredStorageConfig.MIN_SEGMENT_BYTES
                          + " and "
                          + TieredStorageConfig.MAX_SEGMENT_BYTES
                          + " bytes",
                      DataSize.format(TieredStorageConfig.MIN_SEGMENT_BYTES)
                          + " to "
                          + DataSize.format(TieredStorageConfig.MAX_SEGMENT_BYTES)))
              .doc(
                  "The target size of one SSD segment: it holds as many of the oldest whole PM"
                      + " chunks as fit (at least one)."));

  public static final ConfigKey<String> SEGMENT_DIR =
      NODE.define(
          ConfigKey.string("segment-dir", null)
              .defaultDoc("<data-dir>/" + NodeSettings.SEGMENTS_SUBDIR)
              .doc("Where SSD segment files live (created if missing)."));

  public static final ConfigKey<Duration> READ_HOLD =
      NODE.define(
          ConfigKey.duration("read-hold-ms", ReplicaLimits.DEFAULT_READ_HOLD)
              .validator(Validator.positiveDuration())
              .importance(Importance.LOW)
              .doc("How long a replica holds a read it cannot decide yet before answering RETRY."));

  public static final ConfigKey<Integer> METRICS_PORT =
      NODE.define(
          ConfigKey.integer("metrics-port", 0)
              .validator(Validator.between(0, 65535))
              .doc("The Prometheus endpoint's port, 0 for none. --metrics-port overrides it."));

  public static final ConfigKey<Duration> ATOMIC_RESULT_RETENTION =
      NODE.define(
          ConfigKey.duration("atomic-result-retention-ms", AtomicConfig.DEFAULT_RESULT_RETENTION)
              .validator(Validator.positiveDuration())
              .importance(Importance.LOW)
              .doc(
                  "How long a finished or aborted atomic group is remembered to answer a late"
                      + " commit; later ones get ATOMIC_OUTCOME_UNKNOWN."));

  public static final ConfigKey<Integer> ATOMIC_RESULT_RETENTION_COUNT =
      NODE.define(
          ConfigKey.integer(
                  "atomic-result-retention-count", AtomicConfig.DEFAULT_RESULT_RETENTION_COUNT)
              .validator(Validator.positive())
              .importance(Importance.LOW)
              .doc(
                  "The most finished or aborted atomic groups remembered; oldest forgotten first."));

  public static final ConfigKey<Duration> ATOMIC_ABANDON_AFTER =
      NODE.define(
          ConfigKey.duration("atomic-abandon-after-ms", AtomicConfig.DEFAULT_ABANDON_AFTER)
              .validator(Validator.positiveDuration())
              .doc(
                  "How long after its last STAGE an atomic group without commit is durably"
                      + " aborted."));

  public static final ConfigKey<Duration> ATOMIC_FORWARD_RETRY =
      NODE.define(
          ConfigKey.duration("atomic-forward-retry-ms", AtomicConfig.DEFAULT_FORWARD_RETRY)
              .validator(Validator.positiveDuration())
              .importance(Importance.LOW)
              .doc(
                  "The first delay before a forwarded atomic member is sent again, doubled per"
                      + " attempt; also the period of the atomic housekeeping timer."));

  public static final ConfigKey<Duration> ATOMIC_FORWARD_RETRY_MAX =
      NODE.define(
          ConfigKey.duration("atomic-forward-retry-max-ms", AtomicConfig.DEFAULT_FORWARD_RETRY_MAX)
              .validator(Validator.positiveDuration())
              .importance(Importance.LOW)
              .doc("The cap of that delay; at least atomic-forward-retry-ms."));

  public static final ConfigKey<Duration> SUBSCRIBE_HEARTBEAT =
      NODE.define(
          ConfigKey.duration("subscribe-heartbeat-ms", ReplicaLimits.DEFAULT_HEARTBEAT_INTERVAL)
              .validator(Validator.atLeast(ReplicaLimits.MIN_HEARTBEAT_INTERVAL))
              .doc(
                  "A subscription that sent nothing for this long gets a progress message, so"
                      + " that its subscriber can tell an idle replica from a dead link. Keep the"
                      + " clients' subscribe.liveness.timeout.ms a few times larger."));

  public static final ConfigKey<Duration> IDLE_TIMEOUT =
      NODE.define(
          ConfigKey.duration("idle-timeout-ms", ConnectionLimits.DEFAULT_IDLE_TIMEOUT)
              .validator(Validator.positiveDuration())
              .doc(
                  "An accepted data-plane connection that neither sends nor receives a byte for"
                      + " this long is closed (logged once with the peer's address)."));

  public static final ConfigKey<Duration> FRAME_TIMEOUT =
      NODE.define(
          ConfigKey.duration("frame-timeout-ms", ConnectionLimits.DEFAULT_FRAME_TIMEOUT)
              .validator(Validator.positiveDuration())
              .doc(
                  "An accepted connection whose current frame started arriving this long ago and"
                      + " is still incomplete is closed (logged once with the peer's address)."));

  public static final ConfigKey<Long> MAX_FRAME_BYTES =
      NODE.define(
          ConfigKey.dataSize("max-frame-bytes", null)
              .defaultDoc("the larger of 16MiB and max-record-bytes + 64KiB")
              .validator(Validator.between(16, Transport.MAX_FRAME_BYTES))
              .doc(
                  "The largest frame a peer may announce on an accepted connection, so the most"
                      + " one connection makes the node buffer; a larger one closes the"
                      + " connection before it is buffered."));

  public static final ConfigKey<Integer> MAX_CONNECTIONS =
      NODE.define(
          ConfigKey.integer("max-connections", null)
              .defaultDoc("three quarters of the process's file-descriptor limit")
              .validator(Validator.positive())
              .doc(
                  "The most accepted data-plane connections open at once; more are closed at"
                      + " once, logged at most once a second with the peer's address."));

  private ClusterFileDef() {}

  /** The bound on an accepted connection's frame when max-frame-bytes is not set. */
  public static int defaultMaxFrameBytes(int maxRecordBytes) {
    return (int)
        Math.min(Transport.MAX_FRAME_BYTES, Math.max(16L << 20, maxRecordBytes + (64L << 10)));
  }

  /** The connection limits of the node section, frames bounded for {@code maxRecordBytes}. */
  public static ConnectionLimits connections(ConfigValues node, int maxRecordBytes) {
    Long frame = node.get(MAX_FRAME_BYTES);
    Integer max = node.get(MAX_CONNECTIONS);
    return new ConnectionLimits(
        node.get(IDLE_TIMEOUT),
        node.get(FRAME_TIMEOUT),
        frame != null ? frame.intValue() : defaultMaxFrameBytes(maxRecordBytes),
        max != null ? max : ConnectionLimits.defaultMaxConnections());
  }

  /**
   * The replica's settings of atomic appends.
   *
   * @throws ConfigException naming the keys as written when the retry cap is below the first retry
   */
  public static AtomicConfig atomic(ConfigValues node) {
    Duration retry = node.get(ATOMIC_FORWARD_RETRY);
    Duration retryMax = node.get(ATOMIC_FORWARD_RETRY_MAX);
    if (retryMax.compareTo(retry) < 0) {
      String maxKey = node.writtenAs(ATOMIC_FORWARD_RETRY_MAX);
      throw ConfigException.of(
          maxKey,
          retryMax.toMillis(),
          maxKey
              + " must be at least "
              + node.writtenAs(ATOMIC_FORWARD_RETRY)
              + " ("
              + retry.toMillis()
              + "), got "
              + retryMax.toMillis());
    }
    return new AtomicConfig(
        node.get(ATOMIC_RESULT_RETENTION),
        node.get(ATOMIC_RESULT_RETENTION_COUNT),
        node.get(ATOMIC_ABANDON_AFTER),
        retry,
        retryMax);
  }
}
