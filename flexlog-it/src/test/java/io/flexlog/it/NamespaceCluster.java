package io.flexlog.it;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The layout of {@code flexlog dev --processes} (sequencer nodes 0-2, also the metadata quorum,
 * with sequencer failover; replica nodes 3-5 holding {@code global}'s one shard), each node a JVM
 * in its own network namespace of a {@link NetworkNamespaces} with its own address, so that a test
 * can cut any node off from any other. Every node serves Prometheus metrics, which the test reads
 * from its own namespace ({@link #metric}). Output goes to {@code <dir>/node-N.log}; a restart
 * keeps the earlier output as {@code node-N.log.1}, {@code .2}, ...
 *
 * <p>Threading: one controlling thread starts, kills and closes; {@link #metric} is thread-safe.
 */
final class NamespaceCluster implements AutoCloseable {
  static final int SEQUENCERS = 3;
  static final int NODES = 6;
  private static final int PORT = 7070;
  private static final int ADMIN_PORT = 7090;
  private static final int METRICS_PORT = 9400;
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);
  private static final List<String> JVM_OPTIONS =
      List.of("-Xms32m", "-Xmx384m", "-XX:+UseSerialGC");

  private final Path dir;
  private final NetworkNamespaces net;
  private final Path clusterFile;
  private final Process[] processes = new Process[NODES];
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private NamespaceCluster(Path dir, NetworkNamespaces net) {
    this.dir = dir;
    this.net = net;
    this.clusterFile = dir.resolve("cluster.yaml");
  }

  /** Writes the cluster file, starts the six nodes and waits for each one's ready line. */
  static NamespaceCluster start(Path dir, NetworkNamespaces net)
      throws IOException, InterruptedException {
    Files.createDirectories(dir);
    NamespaceCluster cluster = new NamespaceCluster(dir, net);
    Files.writeString(cluster.clusterFile, cluster.clusterYaml());
    try {
      for (int id = 0; id < NODES; id++) {
        cluster.launch(id);
      }
      for (int id = 0; id < NODES; id++) {
        cluster.awaitReady(id);
      }
      return cluster;
    } catch (IOException | InterruptedException | RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  private String clusterYaml() {
    StringBuilder b = new StringBuilder("cluster:\n  nodes:\n");
    for (int id = 0; id < NODES; id++) {
      b.append(
          String.format(
              Locale.ROOT,
              "    - {id: %d, kind: %s, host: %s, port: %d",
              id,
              isSequencer(id) ? "sequencer" : "replica",
              net.host(id),
              PORT + id));
      if (isSequencer(id)) {
        b.append(
            String.format(
                Locale.ROOT,
                ", admin-port: %d, metadata-port: %d",
                ADMIN_PORT + 2 * id,
                ADMIN_PORT + 2 * id + 1));
      }
      b.append("}\n");
    }
    b.append("  colors:\n    - {id: 0, name: global, sequencer: 0}\n");
    b.append("  shards:\n    - {id: 0, color: global, replicas: [3, 4, 5]}\n");
    b.append("node:\n  engine: mapped\n  durability: process\n  pm-bytes: 32MiB\n");
    b.append("  cache-bytes: 0\n");
    return b.toString();
  }

  static boolean isSequencer(int id) {
    return id < SEQUENCERS;
  }

  private void launch(int id) throws IOException {
    List<String> java = new ArrayList<>();
    java.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    java.addAll(JVM_OPTIONS);
    java.addAll(List.of("-cp", System.getProperty("java.class.path")));
    java.add("io.flexlog.server.cli.FlexLogCli");
    java.add(isSequencer(id) ? "sequencer" : "replica");
    java.addAll(List.of("--config", clusterFile.toAbsolutePath().toString()));
    java.addAll(List.of("--node-id", Integer.toString(id)));
    java.addAll(List.of("--data", dir.resolve("node-" + id).toAbsolutePath().toString()));
    java.addAll(List.of("--metrics-port", Integer.toString(METRICS_PORT + id)));
    Path log = log(id);
    if (Files.exists(log)) {
      int generation = 1;
      while (Files.exists(log.resolveSibling(log.getFileName() + "." + generation))) {
        generation++;
      }
      Files.move(
          log,
          log.resolveSibling(log.getFileName() + "." + generation),
          StandardCopyOption.REPLACE_EXISTING);
    }
    ProcessBuilder builder =
        new ProcessBuilder(net.exec(id, java))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().put("PMEM_IS_PMEM_FORCE", "1"); // durability 'process', as bin/flexlog
    processes[id] = builder.start();
  }

  private void awaitReady(int id) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (!isReady(id)) {
      if (!processes[id].isAlive()) {
        throw new IllegalStateException(
            "node " + id + " exited with " + processes[id].exitValue() + "; see " + log(id));
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("node " + id + " is not ready; see " + log(id));
      }
      Thread.sleep(50);
    }
  }

  private boolean isReady(int id) throws IOException {
    try (Stream<String> lines = Files.lines(log(id), StandardCharsets.UTF_8)) {
      return lines.anyMatch(l -> l.startsWith("FlexLog ") && l.contains(" ready on "));
    } catch (NoSuchFileException e) {
      return false;
    }
  }

  Path log(int id) {
    return dir.resolve("node-" + id + ".log");
  }

  /** The data-plane addresses of the sequencer nodes, for clients' bootstrap. */
  String bootstrap() {
    List<String> out = new ArrayList<>();
    for (int id = 0; id < SEQUENCERS; id++) {
      out.add(net.host(id) + ":" + (PORT + id));
    }
    return String.join(",", out);
  }

  String adminAddress(int id) {
    return net.host(id) + ":" + (ADMIN_PORT + 2 * id);
  }

  boolean isAlive(int id) {
    return processes[id] != null && processes[id].isAlive();
  }

  /** Kills node {@code id} with SIGKILL and waits until it is gone. */
  void kill(int id) throws InterruptedException {
    processes[id].destroyForcibly().waitFor();
  }

  /** Starts a killed node again on its data directory and waits for its ready line. */
  void restart(int id) throws IOException, InterruptedException {
    launch(id);
    awaitReady(id);
  }

  /**
   * The sum of the samples of Prometheus meter {@code name} on node {@code id} whose labels contain
   * every one of {@code labels} (each {@code key="value"}).
   *
   * @throws IOException when the node does not answer, or serves no such meter
   */
  double metric(int id, String name, String... labels) throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(
                URI.create("http://" + net.host(id) + ":" + (METRICS_PORT + id) + "/metrics"))
            .timeout(Duration.ofSeconds(5))
            .build();
    String body = http.send(request, HttpResponse.BodyHandlers.ofString()).body();
    double sum = 0;
    boolean found = false;
    for (String line : body.split("\n")) {
      if (!line.startsWith(name + "{") && !line.startsWith(name + " ")) {
        continue;
      }
      boolean matches = true;
      for (String label : labels) {
        matches &= line.contains(label);
      }
      if (matches) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        found = true;
      }
    }
    if (!found) {
      throw new IOException("node " + id + " serves no " + name + " " + List.of(labels));
    }
    return sum;
  }

  /** The last {@code lines} lines of every node's log. */
  String logTails(int lines) {
    StringBuilder out = new StringBuilder();
    for (int id = 0; id < NODES; id++) {
      try (Stream<String> all = Files.lines(log(id), StandardCharsets.UTF_8)) {
        List<String> list = all.toList();
        out.append("\n--- node ").append(id).append(" (last ").append(lines).append(" lines)\n");
        list.subList(Math.max(0, list.size() - lines), list.size())
            .forEach(l -> out.append(l).append('\n'));
      } catch (IOException e) {
        out.append("\n--- node ").append(id).append(": ").append(e.getMessage()).append('\n');
      }
    }
    return out.toString();
  }

  /** Stops every node with SIGTERM, or SIGKILL after 10 s. */
  @Override
  public void close() {
    for (Process process : processes) {
      if (process != null) {
        process.destroy();
      }
    }
    for (Process process : processes) {
      if (process == null) {
        continue;
      }
      try {
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        process.destroyForcibly();
      }
    }
  }
}
