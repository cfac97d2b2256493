package io.flexlog.server.cli;

import io.flexlog.core.model.NodeAddress;
import io.flexlog.server.NodeProcess;
import io.flexlog.server.config.ClusterFile;
import io.flexlog.server.config.NodeSettings;
import io.flexlog.server.metrics.MetricsEndpoint;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "replica",
    mixinStandardHelpOptions = true,
    description = "Run one replica node of a multi-process cluster.")
final class ReplicaCommand implements Callable<Integer> {
  @Mixin NodeOptions options;

  @Option(names = "--engine", description = "Storage engine: auto, llpl or mapped.")
  String engine;

  @Option(names = "--durability", description = "pmem, process or fsync.")
  String durability;

  @Option(names = "--pm-bytes", description = "Log capacity, e.g. 256MiB.")
  String pmBytes;

  @Override
  public Integer call() throws Exception {
    ClusterFile file = ClusterFile.load(options.config);
    NodeSettings settings =
        file.nodeSettings(options.nodeId, options.data, engine, durability, pmBytes);
    NodeAddress self = file.topology().node(settings.nodeId());
    if (self.kind() != NodeAddress.Kind.REPLICA) {
      throw new IllegalArgumentException(
          "node " + self.id() + " is not a replica in " + options.config);
    }
    MetricsEndpoint metrics =
        new MetricsEndpoint(
            self.host(),
            options.metricsPort != null ? options.metricsPort : settings.metricsPort());
    NodeProcess node;
    try {
      node = NodeProcess.startReplica(file, settings, metrics.registry(), System.out);
    } catch (Exception e) {
      metrics.close();
      throw e;
    }
    System.out.println(
        "FlexLog replica "
            + self.id()
            + " ready on "
            + self.hostPort()
            + " topology-version="
            + node.topologyVersion());
    System.out.flush();
    NodeRunner.runUntilStopped(
        () -> {
          node.close();
          metrics.close();
        },
        "FlexLog replica " + self.id() + " stopped");
    return 0;
  }
}
