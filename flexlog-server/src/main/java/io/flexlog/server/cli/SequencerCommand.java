package io.flexlog.server.cli;

import io.flexlog.core.model.NodeAddress;
import io.flexlog.server.NodeProcess;
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
    return NodeRunner.runNode(
        options,
        NodeAddress.Kind.SEQUENCER,
        file -> file.nodeSettings(options.nodeId, options.data, null, null, null),
        (file, settings, registry) -> NodeProcess.startSequencer(file, settings, registry),
        node ->
            " epoch="
                + node.sequencer().epoch()
                + " topology-version="
                + node.topologyVersion()
                + node.adminAddress().map(a -> " admin=" + a).orElse("")
                + (node.failover() ? " failover=on" : " failover=off"));
  }
}
