package io.flexlog.server.cli;

import io.flexlog.core.model.NodeAddress;
import io.flexlog.server.NodeProcess;
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

  @Option(
      names = "--engine",
      paramLabel = "ENGINE",
      description = "Storage engine: auto, llpl or mapped.")
  String engine;

  @Option(names = "--durability", paramLabel = "MODE", description = "pmem, process or fsync.")
  String durability;

  @Option(names = "--pm-bytes", paramLabel = "SIZE", description = "Log capacity, e.g. 256MiB.")
  String pmBytes;

  @Override
  public Integer call() throws Exception {
    return NodeRunner.runNode(
        options,
        NodeAddress.Kind.REPLICA,
        file -> file.nodeSettings(options.nodeId, options.data, engine, durability, pmBytes),
        (file, settings, registry) ->
            NodeProcess.startReplica(file, settings, registry, System.out),
        node -> " topology-version=" + node.topologyVersion());
  }
}
