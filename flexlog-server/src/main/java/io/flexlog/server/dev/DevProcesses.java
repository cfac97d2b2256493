package io.flexlog.server.dev;

import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.server.config.DataSize;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A local HA cluster of separate processes on 127.0.0.1 ({@code flexlog dev --processes}): three
 * sequencer nodes (0-2), which are also the metadata quorum, and three replica nodes (3-5), each a
 * JVM of its own running {@code flexlog sequencer} or {@code flexlog replica} on a cluster file
 * this class writes to {@code <data>/cluster.yaml}, so that any one of them can be killed with
 * {@code kill -9} and started again (docs/operations.md, "A local cluster of processes").
 *
 * <p>Layout: node {@code i} listens on {@code port + i}; sequencer node {@code i} serves the admin
 * service on {@code adminPort + 2i} and its metadata quorum peer on {@code adminPort + 2i + 1}.
 * Sequencer node 0 hosts {@code global}, whose one shard is replicated on the three replica nodes.
 * Each node keeps its data in {@code <data>/node-N} and writes its output to {@code
 * <data>/node-N.log}.
 *
 * <p>Threading: not thread-safe; one controlling thread starts, kills and closes.
 */
public final class DevProcesses implements AutoCloseable {
  public static final int SEQUENCERS = 3;
  public static final int REPLICAS = 3;
  public static final int NODES = SEQUENCERS + REPLICAS;

  /** The JVM options of each node: six JVMs share a laptop. */
  static final List<String> JVM_OPTIONS = List.of("-Xms32m", "-Xmx384m", "-XX:+UseSerialGC");

  private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);

  /**
   * What the processes run with.
   *
   * @param port node {@code i} listens on {@code port + i}
   * @param adminPort sequencer node {@code i} serves the admin service on {@code adminPort + 2i}
   */
  public record Options(
      Path dataDir,
      int port,
      int adminPort,
      String engine,
      DurabilityMode durability,
      long pmBytes,
      long cacheBytes) {}

  private final Options options;
  private final Path clusterFile;
  private final Process[] processes = new Process[NODES];

  private DevProcesses(Options options, Path clusterFile) {
    this.options = options;
    this.clusterFile = clusterFile;
  }

  /**
   * Writes the cluster file, starts the six nodes and waits until each printed its ready line.
   *
   * @throws IllegalStateException naming the node and its log when one exits or is not ready within
   *     120 s; the nodes started so far are killed first
   */
  public static DevProcesses start(Options options) throws IOException, InterruptedException {
    Files.createDirectories(options.dataDir());
    Path file = options.dataDir().resolve("cluster.yaml");
    Files.writeString(file, clusterYaml(options));
    DevProcesses cluster = new DevProcesses(options, file);
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

  /** The cluster file every node reads. */
  static String clusterYaml(Options o) {
    StringBuilder b = new StringBuilder("cluster:\n  nodes:\n");
    for (int id = 0; id < NODES; id++) {
      b.append(
          String.format(
              Locale.ROOT,
              "    - {id: %d, kind: %s, host: %s, port: %d",
              id,
              isSequencer(id) ? "sequencer" : "replica",
              DevCluster.HOST,
              o.port() + id));
      if (isSequencer(id)) {
        b.append(
            String.format(
                Locale.ROOT,
                ", admin-port: %d, metadata-port: %d",
                o.adminPort() + 2 * id,
                o.adminPort() + 2 * id + 1));
      }
      b.append("}\n");
    }
    b.append("  colors:\n    - {id: 0, name: global, sequencer: 0}\n");
    b.append("  shards:\n    - {id: 0, color: global, replicas: [3, 4, 5]}\n");
    b.append("node:\n");
    b.append("  engine: ").append(o.engine()).append('\n');
    b.append("  durability: ").append(o.durability().configName()).append('\n');
    b.append("  pm-bytes: ").append(DataSize.format(o.pmBytes())).append('\n');
    b.append("  cache-bytes: ").append(DataSize.format(o.cacheBytes())).append('\n');
    return b.toString();
  }

  static boolean isSequencer(int id) {
    return id < SEQUENCERS;
  }

  private void launch(int id) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(JVM_OPTIONS);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("io.flexlog.server.cli.FlexLogCli");
    command.add(isSequencer(id) ? "sequencer" : "replica");
    command.addAll(List.of("--config", clusterFile.toString(), "--node-id", Integer.toString(id)));
    command.addAll(List.of("--data", options.dataDir().resolve("node-" + id).toString()));
    Path log = log(id);
    if (Files.exists(log)) {
      // Every earlier incarnation's output stays readable beside the new one: node-N.log.1 is the
      // first run's, node-N.log.2 the second's, and so on.
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
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    // As bin/flexlog does: durability 'process' needs libpmem's forced flushes, the others not.
    if (options.durability() == DurabilityMode.PROCESS) {
      builder.environment().put("PMEM_IS_PMEM_FORCE", "1");
    } else {
      builder.environment().remove("PMEM_IS_PMEM_FORCE");
    }
    processes[id] = builder.start();
  }

  private void awaitReady(int id) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (readyLine(id).isEmpty()) {
      if (!processes[id].isAlive()) {
        throw new IllegalStateException(
            "node " + id + " exited with " + processes[id].exitValue() + "; see " + log(id));
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "node "
                + id
                + " is not ready after "
                + READY_TIMEOUT.toSeconds()
                + " s; see "
                + log(id));
      }
      Thread.sleep(50);
    }
  }

  /** The ready line node {@code id} printed since it was last started, if it did. */
  public Optional<String> readyLine(int id) throws IOException {
    List<String> lines;
    try {
      lines = Files.readAllLines(log(id), StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    return lines.stream()
        .filter(l -> l.startsWith("FlexLog ") && l.contains(" ready on "))
        .findFirst();
  }

  /** The {@code bin/flexlog} command that starts node {@code id} again by hand. */
  public String restartCommand(int id) {
    return "bin/flexlog "
        + (isSequencer(id) ? "sequencer" : "replica")
        + " --config "
        + clusterFile.toAbsolutePath()
        + " --node-id "
        + id
        + " --data "
        + options.dataDir().resolve("node-" + id).toAbsolutePath();
  }

  /** Node {@code id}'s output file. */
  public Path log(int id) {
    return options.dataDir().resolve("node-" + id + ".log");
  }

  public Path clusterFile() {
    return clusterFile;
  }

  /** The bootstrap address of clients: sequencer node 0. */
  public String bootstrap() {
    return DevCluster.HOST + ":" + options.port();
  }

  /** The data-plane address of node {@code id}. */
  public String nodeAddress(int id) {
    return DevCluster.HOST + ":" + (options.port() + id);
  }

  /** The admin address of sequencer node {@code id}. */
  public String adminAddress(int id) {
    return DevCluster.HOST + ":" + (options.adminPort() + 2 * id);
  }

  public long pid(int id) {
    return processes[id].pid();
  }

  public boolean isAlive(int id) {
    return processes[id] != null && processes[id].isAlive();
  }

  /** Kills node {@code id} with SIGKILL, as {@code kill -9} does, and waits until it is gone. */
  public void kill(int id) throws InterruptedException {
    processes[id].destroyForcibly().waitFor();
  }

  /** Starts a killed node again on its data directory and waits for its ready line. */
  public void restart(int id) throws IOException, InterruptedException {
    if (isAlive(id)) {
      throw new IllegalStateException("node " + id + " is still running (pid " + pid(id) + ")");
    }
    launch(id);
    awaitReady(id);
  }

  /**
   * Waits until restarted quorum node {@code id} has heard from the metadata quorum's leader (its
   * log says so). Until then its peers may not reach it (their connections to it back off while it
   * is down), so killing another quorum node meanwhile is a second failure, not a single one: the
   * two left cannot elect a leader until the restarted one answers.
   *
   * @return how long it took, in ms
   * @throws IllegalStateException if it has not heard from a leader within {@code limit}
   */
  public long awaitQuorumRejoined(int id, Duration limit) throws IOException, InterruptedException {
    String rejoined = "metadata quorum member node-" + id + ": the leader is now";
    long startNs = System.nanoTime();
    long deadline = startNs + limit.toNanos();
    while (Files.readAllLines(log(id), StandardCharsets.UTF_8).stream()
        .noneMatch(line -> line.contains(rejoined))) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "node "
                + id
                + " did not rejoin the metadata quorum within "
                + limit.toSeconds()
                + " s of its restart; see "
                + log(id));
      }
      Thread.sleep(50);
    }
    return (System.nanoTime() - startNs) / 1_000_000;
  }

  /** Stops every node with SIGTERM (a clean stop), or SIGKILL after 10 s. */
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
        if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        process.destroyForcibly();
      }
    }
  }
}
