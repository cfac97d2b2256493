package io.flexlog.server.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Options shared by the commands that run one node of a multi-process cluster. */
final class NodeOptions {
  @Option(
      names = "--config",
      paramLabel = "FILE",
      required = true,
      description = "The cluster file (YAML).")
  Path config;

  @Option(
      names = "--node-id",
      paramLabel = "N",
      description = "This node's id (default: node.id in the file).")
  Integer nodeId;

  @Option(
      names = "--data",
      paramLabel = "DIR",
      description = "Data directory (default: node.data-dir in the file).")
  Path data;

  @Option(
      names = "--metrics-port",
      paramLabel = "PORT",
      description = "Serve Prometheus metrics on this port.")
  Integer metricsPort;
}
