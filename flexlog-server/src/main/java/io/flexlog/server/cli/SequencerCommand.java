package io.flexlog.server.cli;

import io.flexlog.core.model.NodeAddress;
import io.flexlog.server.NodeProcess;
import io.flexlog.server.config.ClusterFile;
import io.flexlog.server.config.NodeSettings;
import io.flexlog.server.metrics.MetricsEndpoint;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(
    name = "sequencer",
    mixinStandardHelpOptions = true,
    description = "Run one sequencer node of a multi-process cluster.")
final class SequencerCommand implements Callable<Integer> {
  @Mixin NodeOptions options;

  @Override
  public Integer call() throws Exception {
    ClusterFile file = ClusterFile.load(options.config);
    NodeSettings settings = file.nodeSettings(options.nodeId, options.data, null, null, null);
    NodeAddress self = file.topology().node(settings.nodeId());
    if (self.kind() != NodeAddress.Kind.SEQUENCER) {
      throw new IllegalArgumentException(
          "node " + self.id() + " is not a sequencer in " + options.config);
    }
    MetricsEndpoint metrics =
        new MetricsEndpoint(
            self.host(),
            options.metricsPort != null ? options.metricsPort : settings.metricsPort());
    NodeProcess node;
    try {
      node = NodeProcess.startSequencer(file, settings, metrics.registry());
    } catch (Exception e) {
      metrics.close();
      throw e;
    }
    System.out.println(
        "FlexLog sequencer "
            + self.id()
            + " ready on "
            + self.hostPort()
            + " epoch="
            + node.sequencer().epoch()
            + " topology-version="
            + node.topologyVersion()
            + node.adminAddress().map(a -> " admin=" + a).orElse(""));
    System.out.flush();
    NodeRunner.runUntilStopped(
        () -> {
          node.close();
          metrics.close();
        },
        "FlexLog sequencer " + self.id() + " stopped");
    return 0;
  }
}
