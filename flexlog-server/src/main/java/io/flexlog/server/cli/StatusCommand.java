package io.flexlog.server.cli;

import io.flexlog.client.FlexLog;
import io.flexlog.core.model.Topology;
import io.flexlog.server.status.ClusterStatus;
import io.flexlog.server.status.StatusFormat;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description = {
      "Print the state of the cluster.",
      "Every node, up or down (and why), with its kind; for sequencer nodes the epoch, for replica"
          + " nodes the records and bytes in each storage tier (DRAM cache, PM, SSD segments). Every"
          + " color with its parent, sequencer node, head and tail, retention (as its replicas apply"
          + " it; '?' when none answers), and per shard each replica's tail, records and how many"
          + " SNs it lags behind the color's tail. Exit 1 when a node is down."
    })
final class StatusCommand implements Callable<Integer> {
  @Mixin ClientOptions client;

  @Option(names = "--json", description = "Print one JSON object instead of text.")
  boolean json;

  @Override
  public Integer call() {
    Topology topology;
    try (FlexLog log = client.connect()) {
      topology = log.topology();
    }
    Duration timeout = Duration.ofMillis(Math.min(client.timeoutMs, 5000));
    ClusterStatus status = ClusterStatus.gather(topology, timeout);
    System.out.println(
        json ? StatusFormat.json(status) : StatusFormat.text(status).stripTrailing());
    return status.nodes().stream().allMatch(ClusterStatus.NodeStatus::up) ? 0 : 1;
  }
}
