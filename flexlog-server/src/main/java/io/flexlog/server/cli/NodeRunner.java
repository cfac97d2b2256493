package io.flexlog.server.cli;

import io.flexlog.core.model.NodeAddress;
import io.flexlog.server.NodeProcess;
import io.flexlog.server.config.ClusterFile;
import io.flexlog.server.config.NodeSettings;
import io.flexlog.server.metrics.MetricsEndpoint;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;

/**
 * Runs what a node command starts: the node with its metrics endpoint, kept alive until
 * SIGINT/SIGTERM, then closed cleanly. {@link #runNode} is the whole {@code sequencer} and {@code
 * replica} command; {@code dev} uses the pieces.
 */
final class NodeRunner {
  private NodeRunner() {}

  /** Starts something that reports to the registry of a metrics endpoint. */
  @FunctionalInterface
  interface Start<T> {
    T start(MeterRegistry registry) throws Exception;
  }

  /** The role-specific start of a node process from its cluster file and settings. */
  @FunctionalInterface
  interface NodeStart {
    NodeProcess start(ClusterFile file, NodeSettings settings, MeterRegistry registry)
        throws Exception;
  }

  /**
   * Runs one node of a multi-process cluster: loads the cluster file named by {@code options},
   * checks that the node is a {@code kind}, serves its metrics, starts it, prints {@code FlexLog
   * <kind> <id> ready on <host:port>} followed by {@code readyDetails}, and keeps it running until
   * SIGINT/SIGTERM.
   *
   * @param settingsOf this node's settings from the loaded cluster file and the command's options
   * @throws IllegalArgumentException when the node is not a {@code kind}
   */
  static int runNode(
      NodeOptions options,
      NodeAddress.Kind kind,
      Function<ClusterFile, NodeSettings> settingsOf,
      NodeStart start,
      Function<NodeProcess, String> readyDetails)
      throws Exception {
    String role = kind.name().toLowerCase(Locale.ROOT);
    ClusterFile file = ClusterFile.load(options.config);
    NodeSettings settings = settingsOf.apply(file);
    NodeAddress self = file.topology().node(settings.nodeId());
    if (self.kind() != kind) {
      throw new IllegalArgumentException(
          "node " + self.id() + " is not a " + role + " in " + options.config);
    }
    MetricsEndpoint metrics =
        new MetricsEndpoint(
            self.host(),
            options.metricsPort != null ? options.metricsPort : settings.metricsPort());
    NodeProcess node = startOrClose(metrics, registry -> start.start(file, settings, registry));
    System.out.println(
        "FlexLog "
            + role
            + " "
            + self.id()
            + " ready on "
            + self.hostPort()
            + readyDetails.apply(node));
    System.out.flush();
    runUntilStopped(node, metrics, "FlexLog " + role + " " + self.id() + " stopped");
    return 0;
  }

  /** Starts {@code start} with {@code metrics}' registry, closing {@code metrics} if it fails. */
  static <T> T startOrClose(MetricsEndpoint metrics, Start<T> start) throws Exception {
    try {
      return start.start(metrics.registry());
    } catch (Exception e) {
      metrics.close();
      throw e;
    }
  }

  /**
   * Parks the calling thread until SIGINT/SIGTERM, whose shutdown hook closes {@code node}, then
   * {@code metrics}, and prints {@code stoppedMessage}.
   */
  static void runUntilStopped(AutoCloseable node, MetricsEndpoint metrics, String stoppedMessage)
      throws InterruptedException {
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    node.close();
                    metrics.close();
                  } catch (Exception e) {
                    System.err.println("flexlog: error while stopping: " + e);
                  }
                  System.out.println(stoppedMessage);
                  System.out.flush();
                  stopped.countDown();
                },
                "flexlog-shutdown"));
    stopped.await();
  }
}
