package io.flexlog.server.cli;

import io.flexlog.client.FlexLog;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Retention;
import io.flexlog.core.model.Topology;
import io.flexlog.server.control.AdminClient;
import io.flexlog.server.status.ClusterStatus;
import io.flexlog.server.status.StatusFormat;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description = {
      "Print the state of the cluster.",
      "Every node, up or down (and why), with its kind and, for sequencer nodes, the epoch; every"
          + " color with its parent, sequencer node, head and tail, retention (from the admin"
          + " service; '?' when it does not answer), and per shard each replica's tail and how many"
          + " SNs it lags behind the color's tail. Exit 1 when a node is down."
    })
final class StatusCommand implements Callable<Integer> {
  @Mixin ClientOptions client;

  @Option(names = "--json", description = "Print one JSON object instead of text.")
  boolean json;

  @Option(
      names = "--admin",
      paramLabel = "HOST:PORT",
      defaultValue = "127.0.0.1:7090",
      description =
          "host:port of the admin service, for the colors' retention (default: ${DEFAULT-VALUE},"
              + " the dev cluster's).")
  String admin;

  @Override
  public Integer call() {
    Topology topology;
    try (FlexLog log = client.connect()) {
      topology = log.topology();
    }
    Duration timeout = Duration.ofMillis(Math.min(client.timeoutMs, 5000));
    ClusterStatus status = ClusterStatus.gather(topology, retention(topology, timeout), timeout);
    System.out.println(
        json ? StatusFormat.json(status) : StatusFormat.text(status).stripTrailing());
    return status.nodes().stream().allMatch(ClusterStatus.NodeStatus::up) ? 0 : 1;
  }

  /**
   * Each color's retention from the admin service, or none when it does not answer or serves
   * another cluster (other nodes than the data plane's topology names).
   */
  private Map<String, Retention> retention(Topology topology, Duration timeout) {
    Topology withRetention;
    try (AdminClient adminClient = AdminClient.connect(admin, timeout)) {
      withRetention = adminClient.topology();
    } catch (FlexLogException | IllegalArgumentException e) {
      System.err.println("flexlog: retention unknown: " + e.getMessage());
      return Map.of();
    }
    if (!withRetention.nodes().equals(topology.nodes())) {
      System.err.println(
          "flexlog: retention unknown: the admin service at " + admin + " serves another cluster");
      return Map.of();
    }
    Map<String, Retention> byName = new HashMap<>();
    for (Color color : withRetention.colors()) {
      byName.put(color.name(), color.retention());
    }
    return byName;
  }
}
