package io.flexlog.bench.e2e;

import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.server.dev.DevCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The cluster of {@code bin/flexlog dev --tree} (root {@code global} over {@code left} and {@code
 * right}, nine nodes), started in this process on a run of free consecutive loopback ports with its
 * data under a directory the caller owns, durability {@code process}.
 */
final class EmbeddedTree implements AutoCloseable {
  private static final int PORT_ATTEMPTS = 200;
  private static final int START_ATTEMPTS = 3;

  private final DevCluster cluster;
  private final String storageLine;

  private EmbeddedTree(DevCluster cluster, String storageLine) {
    this.cluster = cluster;
    this.storageLine = storageLine;
  }

  /**
   * Starts the tree; a start that fails (a picked port taken meanwhile) is retried on other ports.
   *
   * @param dataDir an empty directory for the nodes' data
   */
  static EmbeddedTree start(Path dataDir, String engine, long pmBytes, PrintWriter progress)
      throws Exception {
    Exception last = null;
    for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      int port = consecutiveFreePorts(DevCluster.nodeCount(DevCluster.Layout.TREE));
      ByteArrayOutputStream banner = new ByteArrayOutputStream();
      try {
        DevCluster cluster =
            DevCluster.start(
                new DevCluster.Options(
                    dataDir.resolve("try-" + attempt),
                    port,
                    engine,
                    DurabilityMode.PROCESS,
                    pmBytes,
                    DevCluster.Layout.TREE,
                    0),
                new SimpleMeterRegistry(),
                new PrintStream(banner, true, StandardCharsets.UTF_8));
        return new EmbeddedTree(cluster, firstStorageLine(banner));
      } catch (Exception e) {
        last = e;
        progress.println("[bench] embedded tree: start attempt " + attempt + " failed: " + e);
        progress.flush();
      }
    }
    throw last;
  }

  private static String firstStorageLine(ByteArrayOutputStream banner) {
    return banner
        .toString(StandardCharsets.UTF_8)
        .lines()
        .filter(l -> l.contains("storage:"))
        .findFirst()
        .orElse("");
  }

  private static int consecutiveFreePorts(int count) throws IOException {
    for (int attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
      int base = ThreadLocalRandom.current().nextInt(20_000, 60_000);
      if (allFree(base, count)) {
        return base;
      }
    }
    throw new IOException("no " + count + " consecutive free ports on 127.0.0.1");
  }

  private static boolean allFree(int base, int count) {
    for (int port = base; port < base + count; port++) {
      try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        socket.setReuseAddress(true);
      } catch (IOException e) {
        return false;
      }
    }
    return true;
  }

  String bootstrap() {
    return cluster.bootstrap();
  }

  /** One replica's storage line (engine, durability, sizes), as the nodes print it at start. */
  String storageLine() {
    return storageLine;
  }

  @Override
  public void close() {
    cluster.close();
  }
}
