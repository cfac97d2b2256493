package io.flexlog.server.cli;

import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.server.config.DataSize;
import io.flexlog.server.dev.DevCluster;
import io.flexlog.server.metrics.MetricsEndpoint;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "dev",
    mixinStandardHelpOptions = true,
    description = {
      "Run an embedded dev cluster on 127.0.0.1: one sequencer and one shard of three replicas.",
      "The sequencer listens on --port (the bootstrap address), the replicas on the next three."
    })
final class DevCommand implements Callable<Integer> {
  @Option(
      names = "--data",
      defaultValue = "flexlog-data",
      description = "Data directory (default: ${DEFAULT-VALUE}).")
  Path data;

  @Option(
      names = "--port",
      defaultValue = "7070",
      description = "Bootstrap port (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(
      names = "--engine",
      defaultValue = "auto",
      description = "Storage engine: auto, llpl or mapped (default: ${DEFAULT-VALUE}).")
  String engine;

  @Option(
      names = "--durability",
      defaultValue = "process",
      description = "pmem, process or fsync (default: ${DEFAULT-VALUE}).")
  String durability;

  @Option(
      names = "--pm-bytes",
      defaultValue = "256MiB",
      description = "Log capacity per replica (default: ${DEFAULT-VALUE}).")
  String pmBytes;

  @Option(
      names = "--cache-bytes",
      defaultValue = "64MiB",
      description =
          "Off-heap record cache per replica, 0 for none (default: ${DEFAULT-VALUE}). With a small"
              + " --pm-bytes, old records move to SSD segments under <data>/replica-N/segments.")
  String cacheBytes;

  @Option(
      names = "--metrics-port",
      defaultValue = "0",
      description = "Serve Prometheus metrics on this port (0: off).")
  int metricsPort;

  @Override
  public Integer call() throws Exception {
    if (port <= 0 || port > 65535 - DevCluster.REPLICAS) {
      throw new IllegalArgumentException("--port must be in 1.." + (65535 - DevCluster.REPLICAS));
    }
    DurabilityMode mode = DurabilityMode.parse(durability);
    long pm = DataSize.parse("--pm-bytes", pmBytes);
    long cache = DataSize.parse("--cache-bytes", cacheBytes);
    MetricsEndpoint metrics = new MetricsEndpoint(DevCluster.HOST, metricsPort);
    DevCluster cluster;
    try {
      cluster =
          DevCluster.start(
              new DevCluster.Options(data, port, engine, mode, pm, cache),
              metrics.registry(),
              System.out);
    } catch (Exception e) {
      metrics.close();
      throw e;
    }
    System.out.println(
        "FlexLog dev cluster ready: bootstrap="
            + cluster.bootstrap()
            + " colors=[global] shards=1 replicas="
            + DevCluster.REPLICAS
            + " data="
            + data.toAbsolutePath()
            + (metrics.port() > 0 ? " metrics=http://127.0.0.1:" + metrics.port() + "/metrics" : "")
            + " (Ctrl-C to stop)");
    System.out.flush();
    NodeRunner.runUntilStopped(
        () -> {
          cluster.close();
          metrics.close();
        },
        "FlexLog dev cluster stopped");
    return 0;
  }
}
