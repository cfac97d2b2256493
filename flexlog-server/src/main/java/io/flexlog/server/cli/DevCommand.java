package io.flexlog.server.cli;

import io.flexlog.core.model.Color;
import io.flexlog.core.model.Topology;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.server.config.DataSize;
import io.flexlog.server.config.NodeSettings;
import io.flexlog.server.dev.DevCluster;
import io.flexlog.server.dev.DevProcesses;
import io.flexlog.server.dev.TopologyReport;
import io.flexlog.server.metrics.MetricsEndpoint;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "dev",
    mixinStandardHelpOptions = true,
    description = {
      "Run an embedded dev cluster on 127.0.0.1: one sequencer and one shard of three replicas.",
      "The sequencer listens on --port (the bootstrap address), the replicas on the next three.",
      "With --tree: a root sequencer (global) and two leaf sequencers (left, right) on --port",
      "and the next two ports, each leaf with two shards of three replicas on six replica nodes",
      "(the next six ports). The admin service (colors add/list) listens on --admin-port.",
      "With --processes: 3 sequencer nodes (also the metadata quorum) and 3 replica nodes, each",
      "a separate process on --port and the next five ports, admin services on --admin-port,",
      "+2 and +4; kill -9 any of them and start it again with the command printed for it."
    })
final class DevCommand implements Callable<Integer> {
  @Option(
      names = "--data",
      paramLabel = "DIR",
      description =
          "Data directory (default: $XDG_DATA_HOME/flexlog/dev, or ~/.local/share/flexlog/dev;"
              + " dev-tree with --tree, dev-processes with --processes). The replicas' logs take up"
              + " to 3 (6 with --tree) x --pm-bytes there; dev prints the path and its size.")
  Path data;

  @Option(
      names = "--port",
      paramLabel = "PORT",
      defaultValue = "7070",
      description = "Bootstrap port (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(
      names = "--tree",
      description = "Run the sequencer tree: global over left and right (9 nodes).")
  boolean tree;

  @Option(
      names = "--processes",
      description =
          "Run 3 sequencer and 3 replica nodes as separate processes (an HA cluster to kill -9).")
  boolean processes;

  @Option(
      names = "--admin-port",
      paramLabel = "PORT",
      description = "Port of the admin gRPC service (default: --port + 20, i.e. 7090).")
  Integer adminPort;

  @Option(
      names = "--engine",
      paramLabel = "ENGINE",
      defaultValue = "auto",
      description = "Storage engine: auto, llpl or mapped (default: ${DEFAULT-VALUE}).")
  String engine;

  @Option(
      names = "--durability",
      paramLabel = "MODE",
      defaultValue = "process",
      description = "pmem, process or fsync (default: ${DEFAULT-VALUE}).")
  String durability;

  @Option(
      names = "--pm-bytes",
      paramLabel = "SIZE",
      defaultValue = "256MiB",
      description = "Log capacity per replica (default: ${DEFAULT-VALUE}).")
  String pmBytes;

  @Option(
      names = "--cache-bytes",
      paramLabel = "SIZE",
      defaultValue = "64MiB",
      description =
          "Off-heap record cache per replica, 0 for none (default: ${DEFAULT-VALUE}). With a small"
              + " --pm-bytes, old records move to SSD segments under <data>/replica-N/segments.")
  String cacheBytes;

  @Option(
      names = "--metrics-port",
      paramLabel = "PORT",
      defaultValue = "0",
      description = "Serve Prometheus metrics on this port (0: off).")
  int metricsPort;

  @Override
  public Integer call() throws Exception {
    if (data == null) {
      data = DevDataDir.defaultDir(processes ? "dev-processes" : tree ? "dev-tree" : "dev");
      System.out.println(
          "data directory: " + data + " (the default for this layout; --data DIR to choose)");
    }
    if (processes) {
      return runProcesses();
    }
    DevCluster.Layout layout = tree ? DevCluster.Layout.TREE : DevCluster.Layout.FLAT;
    int lastNodePort = 65535 - (DevCluster.nodeCount(layout) - 1);
    if (port <= 0 || port > lastNodePort) {
      throw new IllegalArgumentException("--port must be in 1.." + lastNodePort);
    }
    int admin = adminPort != null ? adminPort : port + DevCluster.ADMIN_PORT_OFFSET;
    if (admin <= 0
        || admin > 65535
        || (admin >= port && admin < port + DevCluster.nodeCount(layout))) {
      throw new IllegalArgumentException(
          "--admin-port must be in 1..65535 and not one of the node ports, got " + admin);
    }
    DurabilityMode mode = DurabilityMode.parse(durability);
    long pm = DataSize.parse("--pm-bytes", pmBytes);
    long cache = DataSize.parse("--cache-bytes", cacheBytes);
    MetricsEndpoint metrics = new MetricsEndpoint(DevCluster.HOST, metricsPort);
    DevCluster cluster =
        NodeRunner.startOrClose(
            metrics,
            registry ->
                DevCluster.start(
                    new DevCluster.Options(data, port, engine, mode, pm, cache, layout, admin),
                    registry,
                    System.out));
    Topology topology = cluster.topology();
    System.out.print(TopologyReport.describe(topology));
    System.out.println(DataUsage.describe(data, cluster.replicas().size(), pm, resolvedEngine()));
    System.out.println(
        "FlexLog dev cluster ready: bootstrap="
            + cluster.bootstrap()
            + " admin="
            + cluster.adminAddress()
            + " layout="
            + layout.name().toLowerCase(Locale.ROOT)
            + " colors="
            + topology.colors().stream().map(Color::name).toList()
            + " shards="
            + topology.shards().size()
            + " replicas="
            + cluster.replicas().size()
            + " data="
            + data.toAbsolutePath()
            + (metrics.port() > 0 ? " metrics=http://127.0.0.1:" + metrics.port() + "/metrics" : "")
            + " (Ctrl-C to stop)");
    System.out.flush();
    NodeRunner.runUntilStopped(cluster, metrics, "FlexLog dev cluster stopped");
    return 0;
  }

  private String resolvedEngine() {
    String name = engine.trim().toLowerCase(Locale.ROOT);
    return NodeSettings.AUTO.equals(name) ? StorageEngines.defaultEngine() : name;
  }

  private int runProcesses() throws Exception {
    if (tree) {
      throw new IllegalArgumentException("--processes and --tree cannot be combined");
    }
    int lastNodePort = 65535 - (DevProcesses.NODES - 1);
    if (port <= 0 || port > lastNodePort) {
      throw new IllegalArgumentException("--port must be in 1.." + lastNodePort);
    }
    int admin = adminPort != null ? adminPort : port + DevCluster.ADMIN_PORT_OFFSET;
    int adminPorts = 2 * DevProcesses.SEQUENCERS;
    if (admin <= 0
        || admin + adminPorts - 1 > 65535
        || (admin < port + DevProcesses.NODES && port < admin + adminPorts)) {
      throw new IllegalArgumentException(
          "--admin-port and the next "
              + (adminPorts - 1)
              + " ports must be in 1..65535 and not node ports, got "
              + admin);
    }
    DevProcesses cluster =
        DevProcesses.start(
            new DevProcesses.Options(
                data,
                port,
                admin,
                engine,
                DurabilityMode.parse(durability),
                DataSize.parse("--pm-bytes", pmBytes),
                DataSize.parse("--cache-bytes", cacheBytes)));
    System.out.println(
        DataUsage.describe(
            data, DevProcesses.REPLICAS, DataSize.parse("--pm-bytes", pmBytes), resolvedEngine()));
    for (int id = 0; id < DevProcesses.NODES; id++) {
      System.out.println(
          "node "
              + id
              + " pid "
              + cluster.pid(id)
              + ": "
              + cluster.readyLine(id).orElse("")
              + "\n  log: "
              + cluster.log(id)
              + "\n  restart: "
              + cluster.restartCommand(id));
    }
    System.out.println(
        "FlexLog dev processes ready: bootstrap="
            + cluster.bootstrap()
            + " admin="
            + cluster.adminAddress(0)
            + ","
            + cluster.adminAddress(1)
            + ","
            + cluster.adminAddress(2)
            + " cluster-file="
            + cluster.clusterFile().toAbsolutePath()
            + " (kill -9 any node; Ctrl-C stops them all)");
    System.out.flush();
    NodeRunner.runUntilStopped(
        cluster, new MetricsEndpoint(DevCluster.HOST, 0), "FlexLog dev processes stopped");
    return 0;
  }
}
