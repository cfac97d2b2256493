package io.flexlog.server.config;

import io.flexlog.core.config.ConfigDef;
import io.flexlog.core.config.ConfigException;
import io.flexlog.core.config.ConfigValues;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.server.control.HostPort;
import io.flexlog.server.control.quorum.QuorumConfig;
import io.flexlog.server.control.quorum.RoleLeaseKeeper;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * A cluster file: the cluster's nodes, colors and shards, and optionally the settings of the node
 * that reads it. Every node of a cluster can read the same file and pick its own node with {@code
 * --node-id}.
 *
 * <pre>{@code
 * cluster:
 *   max-record-bytes: 1MiB
 *   nodes:
 *     - {id: 0, kind: sequencer, host: 127.0.0.1, port: 7070, admin-port: 7090, metadata-port: 7091}
 *     - {id: 1, kind: replica, host: 127.0.0.1, port: 7071}
 *   colors:
 *     - {id: 0, name: global, sequencer: 0}
 *     - {id: 1, name: left, parent: global, sequencer: 0}
 *   shards:
 *     - {id: 0, color: left, replicas: [1, 2, 3]}
 * node:
 *   id: 1
 *   data-dir: ./flexlog-data/replica-1
 *   engine: auto            # auto | llpl | mapped
 *   durability: process     # pmem | process | fsync
 *   pm-bytes: 256MiB
 *   chunk-bytes: 16MiB
 *   cache-bytes: 64MiB        # off-heap cache, 0 for none
 *   pm-high-watermark: 0.75   # PM use above which old chunks move to SSD segments
 *   segment-bytes: 64MiB      # target size of one SSD segment
 *   segment-dir: ./flexlog-data/replica-1/segments   # default <data-dir>/segments
 *   read-hold-ms: 1
 *   metrics-port: 0
 *   atomic-result-retention-ms: 600000    # finished atomic groups remembered this long
 *   atomic-result-retention-count: 100000 # and at most this many
 *   atomic-abandon-after-ms: 60000        # staged groups without commit aborted after this
 *   atomic-forward-retry-ms: 200          # first retry of a forwarded member, doubling
 *   atomic-forward-retry-max-ms: 10000    # up to this
 *   subscribe-heartbeat-ms: 1000          # idle subscriptions repeat their progress this often
 * }</pre>
 *
 * <p>Every key of {@code node:} and the scalar keys of {@code cluster:} are declared, with their
 * types, defaults and rules, in {@link ClusterFileDef}; {@code docs/configuration.md} lists them.
 *
 * <p>The nodes with an {@code admin-port} (1, 3 or 5; the sequencer nodes, usually) form the
 * metadata quorum (docs/architecture.md, "Metadata quorum"): each serves the admin gRPC service
 * (AddColor, topology distribution) there and runs its Raft peer on {@code metadata-port} (default
 * {@code admin-port + 1}); every other node watches them for topology changes. Without any {@code
 * admin-port} the topology is static.
 */
public final class ClusterFile {
  private static final Set<String> NODE_ENTRY_KEYS =
      Set.of("id", "kind", "host", "port", "admin-port", "metadata-port");

  /** The lists of {@code cluster:}: the topology. Its scalar keys are in {@link ClusterFileDef}. */
  private static final List<String> TOPOLOGY_KEYS = List.of("nodes", "colors", "shards");

  /**
   * Sequencer nodes a metadata quorum needs for sequencer failover to be on by default: a role's
   * leader and {@code 2f} backups with {@code f} = 1.
   */
  static final int MIN_FAILOVER_SEQUENCERS = 3;

  private final Path source;
  private final Topology topology;
  private final int maxRecordBytes;
  private final Map<String, Object> node;
  private final QuorumConfig quorum;
  private final RoleLeaseKeeper.Timing failover;

  private ClusterFile(
      Path source,
      Topology topology,
      int maxRecordBytes,
      Map<String, Object> node,
      QuorumConfig quorum,
      RoleLeaseKeeper.Timing failover) {
    this.source = source;
    this.topology = topology;
    this.maxRecordBytes = maxRecordBytes;
    this.node = node;
    this.quorum = quorum;
    this.failover = failover;
  }

  /**
   * @throws IllegalArgumentException naming the file and the key at fault
   */
  public static ClusterFile load(Path path) throws IOException {
    Map<String, Object> root;
    try (Reader reader = Files.newBufferedReader(path)) {
      Object loaded = new Yaml(new SafeConstructor(new LoaderOptions())).load(reader);
      if (!(loaded instanceof Map)) {
        throw new IllegalArgumentException(path + ": expected a YAML mapping with 'cluster:'");
      }
      root = map(loaded, "top level");
    } catch (org.yaml.snakeyaml.error.YAMLException e) {
      throw new IllegalArgumentException(path + ": not valid YAML: " + e.getMessage());
    }
    try {
      for (String key : root.keySet()) {
        if (!key.equals("cluster") && !key.equals("node")) {
          throw new IllegalArgumentException("unknown top-level key '" + key + "'");
        }
      }
      Map<String, Object> cluster = map(root.get("cluster"), "cluster");
      Map<String, Object> clusterSettings = new HashMap<>(cluster);
      clusterSettings.keySet().removeAll(TOPOLOGY_KEYS);
      ConfigValues settings = ClusterFileDef.CLUSTER.parse(clusterSettings);
      Topology topology = parseTopology(cluster);
      QuorumConfig quorum = parseQuorum(cluster, topology, settings);
      int maxRecordBytes = settings.get(ClusterFileDef.MAX_RECORD_BYTES).intValue();
      Map<String, Object> node =
          root.containsKey("node") ? map(root.get("node"), "node") : new HashMap<>();
      ClusterFileDef.NODE.checkKnown(node.keySet());
      return new ClusterFile(
          path, topology, maxRecordBytes, node, quorum, parseFailover(settings, quorum, topology));
    } catch (IllegalArgumentException | ClassCastException e) {
      throw new IllegalArgumentException(path + ": " + e.getMessage(), e);
    }
  }

  private static Topology parseTopology(Map<String, Object> cluster) {
    List<NodeAddress> nodes = new ArrayList<>();
    for (Object item : list(cluster.get("nodes"), "cluster.nodes")) {
      Map<String, Object> n = map(item, "cluster.nodes[]");
      checkKeys(n, NODE_ENTRY_KEYS, "cluster.nodes[]");
      String kind = string(n.get("kind"), "cluster.nodes[].kind").toUpperCase(Locale.ROOT);
      if (!kind.equals("SEQUENCER") && !kind.equals("REPLICA")) {
        throw new IllegalArgumentException(
            "cluster.nodes[].kind: '" + n.get("kind") + "' is not sequencer or replica");
      }
      nodes.add(
          new NodeAddress(
              integer(n.get("id"), "cluster.nodes[].id"),
              NodeAddress.Kind.valueOf(kind),
              string(n.getOrDefault("host", "127.0.0.1"), "cluster.nodes[].host"),
              integer(n.get("port"), "cluster.nodes[].port")));
    }
    List<Color> colors = new ArrayList<>();
    Map<String, Integer> colorIds = new HashMap<>();
    for (Object item : list(cluster.get("colors"), "cluster.colors")) {
      Map<String, Object> c = map(item, "cluster.colors[]");
      String name = string(c.get("name"), "cluster.colors[].name");
      Object parent = c.get("parent");
      int parentId =
          parent == null
              ? Color.NO_PARENT
              : colorIds.getOrDefault(String.valueOf(parent), Integer.MIN_VALUE);
      if (parentId == Integer.MIN_VALUE) {
        throw new IllegalArgumentException(
            "color '" + name + "': parent '" + parent + "' must be listed before it");
      }
      int id = integer(c.get("id"), "cluster.colors[].id");
      colors.add(
          new Color(id, name, parentId, integer(c.get("sequencer"), "cluster.colors[].sequencer")));
      colorIds.put(name, id);
    }
    List<Shard> shards = new ArrayList<>();
    for (Object item : list(cluster.get("shards"), "cluster.shards")) {
      Map<String, Object> s = map(item, "cluster.shards[]");
      String colorName = string(s.get("color"), "cluster.shards[].color");
      Integer colorId = colorIds.get(colorName);
      if (colorId == null) {
        throw new IllegalArgumentException("shard attached to unknown color '" + colorName + "'");
      }
      List<Integer> replicas = new ArrayList<>();
      for (Object r : list(s.get("replicas"), "cluster.shards[].replicas")) {
        replicas.add(integer(r, "cluster.shards[].replicas[]"));
      }
      shards.add(new Shard(integer(s.get("id"), "cluster.shards[].id"), colorId, replicas));
    }
    return new Topology(1, nodes, colors, shards);
  }

  // The nodes with an admin-port form the metadata quorum, each with a Raft port.
  private static QuorumConfig parseQuorum(
      Map<String, Object> cluster, Topology topology, ConfigValues settings) {
    List<QuorumConfig.Peer> peers = new ArrayList<>();
    Set<String> taken = new HashSet<>();
    for (NodeAddress n : topology.nodes().values()) {
      taken.add(n.host() + ":" + n.port());
    }
    for (Object item : list(cluster.get("nodes"), "cluster.nodes")) {
      Map<String, Object> n = map(item, "cluster.nodes[]");
      if (!n.containsKey("admin-port")) {
        if (n.containsKey("metadata-port")) {
          throw new IllegalArgumentException(
              "cluster.nodes[].metadata-port: node "
                  + n.get("id")
                  + " has no admin-port; only metadata quorum nodes (those with an admin-port)"
                  + " have a metadata-port");
        }
        continue;
      }
      NodeAddress address = topology.node(integer(n.get("id"), "cluster.nodes[].id"));
      int admin = port(n.get("admin-port"), "admin-port", address, taken);
      int raft = port(n.getOrDefault("metadata-port", admin + 1), "metadata-port", address, taken);
      peers.add(new QuorumConfig.Peer(address.id(), address.host(), raft, admin));
    }
    if (peers.isEmpty()) {
      return null;
    }
    if (peers.size() % 2 == 0) {
      throw new IllegalArgumentException(
          "cluster.nodes[].admin-port: "
              + peers.size()
              + " nodes have one, but the metadata quorum needs an odd number of nodes (an even"
              + " number survives no more failures than one node fewer); give it to 1, 3 or 5"
              + " nodes");
    }
    return new QuorumConfig(
        peers,
        settings.get(ClusterFileDef.METADATA_TIMEOUT),
        settings.get(ClusterFileDef.METADATA_SNAPSHOT_ENTRIES));
  }

  private static int port(Object value, String key, NodeAddress node, Set<String> taken) {
    int port = integer(value, "cluster.nodes[]." + key);
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("cluster.nodes[]." + key + " out of range: " + port);
    }
    if (!taken.add(node.host() + ":" + port)) {
      throw new IllegalArgumentException(
          "cluster.nodes[]."
              + key
              + " of node "
              + node.id()
              + ": "
              + node.host()
              + ":"
              + port
              + " is already used by another port of the cluster file");
    }
    return port;
  }

  /**
   * Sequencer failover is on when the cluster file says so, and by default when the metadata quorum
   * has at least {@link #MIN_FAILOVER_SEQUENCERS} sequencer nodes: every role then has a leader and
   * two backups ({@code f} = 1; docs/architecture.md#sequencer-failover).
   */
  private static RoleLeaseKeeper.Timing parseFailover(
      ConfigValues settings, QuorumConfig quorum, Topology topology) {
    Boolean explicit = settings.get(ClusterFileDef.SEQUENCER_FAILOVER);
    List<Integer> outside = quorum == null ? List.of() : sequencersOutside(quorum, topology);
    boolean on =
        explicit != null
            ? explicit
            : quorum != null
                && outside.isEmpty()
                && quorumSequencers(quorum, topology) >= MIN_FAILOVER_SEQUENCERS;
    if (!on) {
      return null;
    }
    if (quorum == null) {
      throw new IllegalArgumentException(
          "cluster.sequencer-failover needs a metadata quorum: give the sequencer nodes an"
              + " admin-port");
    }
    if (!outside.isEmpty()) {
      // Backups watch and take leases through their own copy of the metadata, which only quorum
      // nodes have; a role on any other node would have no backup (docs/architecture.md).
      throw new IllegalArgumentException(
          "cluster.sequencer-failover: sequencer node(s) "
              + outside
              + " have no admin-port, but with failover every sequencer node must be a metadata"
              + " quorum node (the backups of every role); give them an admin-port (the quorum"
              + " needs an odd number of nodes) or set sequencer-failover: false");
    }
    java.time.Duration heartbeat = settings.get(ClusterFileDef.ROLE_HEARTBEAT);
    java.time.Duration lease = settings.get(ClusterFileDef.ROLE_LEASE);
    if (lease.compareTo(heartbeat.multipliedBy(2)) < 0) {
      throw new IllegalArgumentException(
          "cluster.role-lease-ms ("
              + lease.toMillis()
              + ") must be at least two role-heartbeat-ms ("
              + heartbeat.toMillis()
              + ")");
    }
    java.time.Duration margin = java.time.Duration.ofMillis(Math.min(100, lease.toMillis() / 5));
    return new RoleLeaseKeeper.Timing(heartbeat, lease, margin);
  }

  private static List<Integer> sequencersOutside(QuorumConfig quorum, Topology topology) {
    List<Integer> outside = new ArrayList<>();
    for (NodeAddress node : topology.nodes().values()) {
      if (node.kind() == NodeAddress.Kind.SEQUENCER && quorum.peer(node.id()).isEmpty()) {
        outside.add(node.id());
      }
    }
    return outside;
  }

  private static int quorumSequencers(QuorumConfig quorum, Topology topology) {
    int sequencers = 0;
    for (QuorumConfig.Peer peer : quorum.peers()) {
      if (topology.node(peer.nodeId()).kind() == NodeAddress.Kind.SEQUENCER) {
        sequencers++;
      }
    }
    return sequencers;
  }

  /**
   * The lease timing of sequencer failover when {@code sequencer-failover} is on (docs/
   * architecture.md, "Sequencer failover").
   */
  public Optional<RoleLeaseKeeper.Timing> failover() {
    return Optional.ofNullable(failover);
  }

  /** The admin address of the first metadata quorum node, if the cluster has an admin service. */
  public Optional<HostPort> admin() {
    return quorum == null ? Optional.empty() : Optional.of(quorum.admins().get(0));
  }

  /** The metadata quorum: the nodes with an {@code admin-port}. Empty for a static topology. */
  public Optional<QuorumConfig> quorum() {
    return Optional.ofNullable(quorum);
  }

  /** The id of the sequencer node that hosts the root color. */
  public int rootSequencerId() {
    return topology.colors().stream()
        .filter(Color::isRoot)
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException(source + ": no root color"))
        .sequencerId();
  }

  public Path source() {
    return source;
  }

  public Topology topology() {
    return topology;
  }

  public int maxRecordBytes() {
    return maxRecordBytes;
  }

  /**
   * The settings of one node: the file's {@code node:} section, then the given overrides (null
   * values mean "not given"), parsed and checked by {@link ClusterFileDef#NODE}.
   *
   * @throws io.flexlog.core.config.ConfigException naming the key (or flag) as written
   */
  public NodeSettings nodeSettings(
      Integer nodeId, Path dataDir, String engine, String durability, String pmBytes) {
    ConfigDef def = ClusterFileDef.NODE;
    ConfigValues values = def.parse(node);
    int id = nodeId != null ? nodeId : nodeId(values);
    topology.node(id);
    Path dir =
        dataDir != null
            ? dataDir
            : Path.of(
                values.isSet(ClusterFileDef.DATA_DIR)
                    ? values.get(ClusterFileDef.DATA_DIR)
                    : "flexlog-data/node-" + id);
    String eng =
        engine != null
            ? def.parse(ClusterFileDef.ENGINE, "--engine", engine)
            : values.get(ClusterFileDef.ENGINE);
    DurabilityMode mode =
        DurabilityMode.parse(
            durability != null
                ? def.parse(ClusterFileDef.DURABILITY, "--durability", durability)
                : values.get(ClusterFileDef.DURABILITY));
    long pm =
        pmBytes != null
            ? def.parse(ClusterFileDef.PM_BYTES, "--pm-bytes", pmBytes)
            : values.get(ClusterFileDef.PM_BYTES);
    long chunk =
        values.isSet(ClusterFileDef.CHUNK_BYTES)
            ? values.get(ClusterFileDef.CHUNK_BYTES)
            : defaultChunk(pm);
    Path segmentDir =
        values.isSet(ClusterFileDef.SEGMENT_DIR)
            ? Path.of(values.get(ClusterFileDef.SEGMENT_DIR))
            : null;
    return new NodeSettings(
        id,
        dir,
        eng,
        mode,
        pm,
        chunk,
        values.get(ClusterFileDef.READ_HOLD),
        values.get(ClusterFileDef.METRICS_PORT),
        values.get(ClusterFileDef.CACHE_BYTES),
        values.get(ClusterFileDef.PM_HIGH_WATERMARK),
        segmentDir,
        values.get(ClusterFileDef.SEGMENT_BYTES),
        ClusterFileDef.atomic(values),
        values.get(ClusterFileDef.SUBSCRIBE_HEARTBEAT),
        ClusterFileDef.connections(values, maxRecordBytes));
  }

  private static int nodeId(ConfigValues values) {
    Integer id = values.get(ClusterFileDef.ID);
    if (id == null) {
      throw ConfigException.of(ClusterFileDef.ID.name(), null, "node.id (or --node-id) is missing");
    }
    return id;
  }

  /**
   * Chunks of 16 MiB, smaller (down to 1 MiB) for small logs so that a log has at least 16 chunks:
   * PM is tiered to SSD and reused in whole chunks, so small logs need fine ones.
   */
  public static long defaultChunk(long pmBytes) {
    long chunk = StorageEngines.DEFAULT_CHUNK_BYTES;
    while (chunk > (1L << 20) && pmBytes / chunk < 16) {
      chunk >>= 1;
    }
    return chunk;
  }

  // ---------------------------------------------------------------- YAML helpers

  private static void checkKeys(Map<String, Object> map, Set<String> allowed, String where) {
    for (String key : map.keySet()) {
      if (!allowed.contains(key)) {
        throw new IllegalArgumentException(
            "unknown key '" + key + "' in " + where + " (known: " + allowed + ")");
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object value, String where) {
    if (!(value instanceof Map)) {
      throw new IllegalArgumentException(where + " must be a mapping");
    }
    return (Map<String, Object>) value;
  }

  private static List<?> list(Object value, String where) {
    if (!(value instanceof List)) {
      throw new IllegalArgumentException(where + " must be a list");
    }
    return (List<?>) value;
  }

  private static String string(Object value, String where) {
    if (value == null) {
      throw new IllegalArgumentException(where + " is missing");
    }
    return String.valueOf(value);
  }

  private static int integer(Object value, String where) {
    if (value instanceof Integer i) {
      return i;
    }
    if (value == null) {
      throw new IllegalArgumentException(where + " is missing");
    }
    try {
      return Integer.parseInt(String.valueOf(value).trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(where + ": '" + value + "' is not an integer");
    }
  }
}
