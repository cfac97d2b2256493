package io.flexlog.it;

import io.flexlog.core.testing.FreePorts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A FlexLog cluster of real processes on 127.0.0.1, each node a separate JVM started from the
 * cluster file through the {@code flexlog} command line. {@link #create} makes the flat cluster
 * (one sequencer, node 0, and one shard of three replicas, nodes 1-3); {@link #create(Path,
 * Layout)} takes any {@link Layout}, such as {@link Layout#tree()}. Every node's stdout and stderr
 * go to files under the cluster's directory, so a failing test can show what the nodes said ({@link
 * #logTails}).
 *
 * <pre>{@code
 * try (TestCluster cluster = TestCluster.create(tempDir)) {
 *   cluster.start();
 *   cluster.killReplica(2);     // SIGKILL, waits for the process to exit
 *   cluster.restartReplica(2);  // same data directory, waits for "ready"
 * }
 * }</pre>
 *
 * <p>Processes never outlive the test JVM: {@link #close} kills every node, and a shutdown hook
 * kills whatever a crashed test left behind.
 */
final class TestCluster implements AutoCloseable {
  static final int SEQUENCER = 0;
  static final List<Integer> REPLICAS = List.of(1, 2, 3);
  static final String COLOR = "global";
  static final int COLOR_ID = 0;

  private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(10);
  private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(() -> LIVE.forEach(Process::destroyForcibly), "test-cluster-reaper"));
  }

  /**
   * Which nodes a cluster has and the colors and shards of its cluster file. Sequencer ids come
   * first; the first one hosts the root color and is the clients' bootstrap node.
   *
   * @param colors YAML flow mappings of {@code cluster.colors}, one per entry
   * @param shards YAML flow mappings of {@code cluster.shards}, one per entry
   * @param failover whether the sequencer nodes form the metadata quorum (each with an admin and a
   *     metadata port), which turns {@code sequencer-failover} on by default when there are three
   *     or more of them: every one a backup of every role
   */
  record Layout(
      List<Integer> sequencers,
      List<Integer> replicas,
      List<String> colors,
      List<String> shards,
      boolean failover) {
    /** One sequencer hosting {@code global}, one shard of three replicas. */
    static Layout flat() {
      return new Layout(
          List.of(SEQUENCER),
          REPLICAS,
          List.of("{id: 0, name: global, sequencer: 0}"),
          List.of("{id: 0, color: global, replicas: [1, 2, 3]}"),
          false);
    }

    /**
     * The {@code dev --tree} shape: a root sequencer (node 0, {@code global}) and two leaf
     * sequencers (nodes 1 and 2, colors {@code left} and {@code right}); two shards under each
     * leaf, three replicas each: replica nodes 3-5 hold the first shard of each leaf, 6-8 the
     * second.
     */
    static Layout tree() {
      return new Layout(
          List.of(0, 1, 2),
          List.of(3, 4, 5, 6, 7, 8),
          List.of(
              "{id: 0, name: global, sequencer: 0}",
              "{id: 1, name: left, parent: global, sequencer: 1}",
              "{id: 2, name: right, parent: global, sequencer: 2}"),
          List.of(
              "{id: 0, color: left, replicas: [3, 4, 5]}",
              "{id: 1, color: left, replicas: [6, 7, 8]}",
              "{id: 2, color: right, replicas: [3, 4, 5]}",
              "{id: 3, color: right, replicas: [6, 7, 8]}"),
          false);
    }
  }

  private final Path dir;
  private final Layout layout;
  private final Path config;
  private final Map<Integer, Integer> ports = new TreeMap<>();
  // Sequencer id -> its admin port (the metadata port is the next one), with failover only.
  private final Map<Integer, Integer> adminPorts = new TreeMap<>();
  // Node id -> the port every other node and every client is told to use (a proxy's), if any.
  private final Map<Integer, Integer> advertised = new TreeMap<>();
  private final Map<Integer, Node> nodes = new TreeMap<>();
  private final List<String> lifecycle = new ArrayList<>();

  private TestCluster(Path dir, Layout layout) throws IOException {
    this.dir = dir;
    this.layout = layout;
    this.config = dir.resolve("cluster.yaml");
    for (int id : layout.sequencers()) {
      ports.put(id, freePort());
      if (layout.failover()) {
        adminPorts.put(id, FreePorts.consecutive(2));
      }
    }
    for (int id : layout.replicas()) {
      ports.put(id, freePort());
    }
    Files.writeString(config, yaml(-1));
  }

  /** Writes the flat cluster's file under {@code dir}; no process runs until {@link #start}. */
  static TestCluster create(Path dir) throws IOException {
    return new TestCluster(dir, Layout.flat());
  }

  /** Writes the cluster file of {@code layout} under {@code dir}. */
  static TestCluster create(Path dir, Layout layout) throws IOException {
    return new TestCluster(dir, layout);
  }

  /**
   * The cluster file as node {@code self} reads it: itself at its real port, every other node at
   * its {@link #advertise advertised} port; {@code self} -1 gives every node its real port.
   */
  private String yaml(int self) {
    StringBuilder y = new StringBuilder();
    y.append("cluster:\n  max-record-bytes: 1MiB\n");
    // No sequencer-failover key: a quorum of three or more sequencer nodes turns it on by default.
    y.append("  nodes:\n");
    for (int sequencer : layout.sequencers()) {
      y.append(node(sequencer, "sequencer", self));
    }
    for (int replica : layout.replicas()) {
      y.append(node(replica, "replica", self));
    }
    y.append("  colors:\n");
    layout.colors().forEach(c -> y.append("    - ").append(c).append('\n'));
    y.append("  shards:\n");
    layout.shards().forEach(c -> y.append("    - ").append(c).append('\n'));
    return y.toString();
  }

  Layout layout() {
    return layout;
  }

  private String node(int id, String kind, int self) {
    int port = id == self ? ports.get(id) : advertised.getOrDefault(id, ports.get(id));
    Integer admin = adminPorts.get(id);
    String quorum =
        admin == null ? "" : ", admin-port: %d, metadata-port: %d".formatted(admin, admin + 1);
    return "    - {id: %d, kind: %s, host: 127.0.0.1, port: %d%s}\n"
        .formatted(id, kind, port, quorum);
  }

  /** The port node {@code id} listens on. */
  int port(int id) {
    return ports.get(id);
  }

  /**
   * Before {@link #start}: every other node, and through their topology every client, reaches node
   * {@code id} at {@code port} (a fault-injecting proxy in front of it) instead of its own port.
   * Each node then reads a cluster file of its own, which lists itself at its real port.
   */
  void advertise(int id, int port) {
    advertised.put(id, port);
  }

  /** SIGKILL of any node; returns once it has exited. */
  void killNode(int id) throws Exception {
    kill(id);
  }

  /** Starts a killed node again on the same data directory; returns its ready line. */
  String restartNode(int id) throws Exception {
    return startNode(id).awaitReady();
  }

  /**
   * Starts the sequencers (root first; with failover all at once, since the metadata quorum needs a
   * majority), then the replicas in parallel; returns when all are ready.
   */
  TestCluster start() throws Exception {
    List<Node> sequencers = new ArrayList<>();
    for (int sequencer : layout.sequencers()) {
      Node node = startNode(sequencer);
      if (layout.failover()) {
        sequencers.add(node);
      } else {
        node.awaitReady();
      }
    }
    for (Node sequencer : sequencers) {
      sequencer.awaitReady();
    }
    List<Node> replicas = new ArrayList<>();
    for (int replica : layout.replicas()) {
      replicas.add(startNode(replica));
    }
    for (Node replica : replicas) {
      replica.awaitReady();
    }
    return this;
  }

  /** The root sequencer; with failover every sequencer, since any of them may be down. */
  String bootstrap() {
    List<Integer> nodes =
        layout.failover() ? layout.sequencers() : layout.sequencers().subList(0, 1);
    List<String> addresses = new ArrayList<>();
    nodes.forEach(id -> addresses.add("127.0.0.1:" + ports.get(id)));
    return String.join(",", addresses);
  }

  /** The admin service of sequencer {@code id} (failover layouts only). */
  String adminAddress(int id) {
    Integer port = adminPorts.get(id);
    if (port == null) {
      throw new IllegalArgumentException("node " + id + " serves no admin service");
    }
    return "127.0.0.1:" + port;
  }

  int replicaPort(int replica) {
    requireReplica(replica);
    return ports.get(replica);
  }

  /** The data directory of node {@code id}. */
  Path dataDir(int id) {
    return dir.resolve("data-" + id);
  }

  Path configFile() {
    return config;
  }

  /** SIGKILL ({@code kill -9}) of a replica process; returns once it has exited. */
  void killReplica(int replica) throws Exception {
    requireReplica(replica);
    kill(replica);
  }

  /** Starts a killed replica again on the same data directory and waits until it serves. */
  void restartReplica(int replica) throws Exception {
    requireReplica(replica);
    startNode(replica).awaitReady();
  }

  /** SIGKILL of the root sequencer node. */
  void killSequencer() throws Exception {
    kill(layout.sequencers().get(0));
  }

  /** Starts the root sequencer again on the same data directory; returns its ready line. */
  String restartSequencer() throws Exception {
    return startNode(layout.sequencers().get(0)).awaitReady();
  }

  /** The line a replica printed about its storage engine in its current incarnation. */
  String storageLine(int replica) throws Exception {
    requireReplica(replica);
    Node node = nodes.get(replica);
    node.awaitReady();
    return node.storageLine;
  }

  /** The ready line the node printed in its current incarnation. */
  String readyLine(int id) throws Exception {
    return nodes.get(id).awaitReady();
  }

  boolean isRunning(int id) {
    Node node = nodes.get(id);
    return node != null && node.process.isAlive();
  }

  private void requireReplica(int replica) {
    if (!layout.replicas().contains(replica)) {
      throw new IllegalArgumentException(
          "no replica " + replica + " (replicas: " + layout.replicas() + ")");
    }
  }

  private void kill(int id) throws Exception {
    Node node = nodes.get(id);
    if (node == null || !node.process.isAlive()) {
      throw new IllegalStateException("node " + id + " is not running");
    }
    lifecycle.add("kill -9 node " + id + " (pid " + node.process.pid() + ")");
    node.process.destroyForcibly();
    if (!node.process.waitFor(EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException("node " + id + " survived SIGKILL for " + EXIT_TIMEOUT);
    }
    LIVE.remove(node.process);
    node.joinPumps();
  }

  private Node startNode(int id) throws IOException {
    Node previous = nodes.get(id);
    if (previous != null && previous.process.isAlive()) {
      throw new IllegalStateException("node " + id + " is already running");
    }
    int incarnation = previous == null ? 1 : previous.incarnation + 1;
    boolean sequencer = layout.sequencers().contains(id);
    Path data = dir.resolve("data-" + id);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx256m");
    command.add("-XX:+UseSerialGC");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-cp");
    command.add(classpath());
    command.add("io.flexlog.server.cli.FlexLogCli");
    command.add(sequencer ? "sequencer" : "replica");
    Path nodeConfig = config;
    if (!advertised.isEmpty()) {
      nodeConfig = dir.resolve("cluster-" + id + ".yaml");
      Files.writeString(nodeConfig, yaml(id));
    }
    command.addAll(List.of("--config", nodeConfig.toString(), "--node-id", Integer.toString(id)));
    command.addAll(List.of("--data", data.toString()));
    if (!sequencer) {
      command.addAll(List.of("--engine", "auto", "--durability", "process"));
    }
    ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
    builder.environment().put("PMEM_IS_PMEM_FORCE", "1");
    String name = (sequencer ? "sequencer-" : "replica-") + id + "-run" + incarnation;
    lifecycle.add("start node " + id + " as " + name);
    Process process = builder.start();
    LIVE.add(process);
    Node node = new Node(id, incarnation, name, process);
    nodes.put(id, node);
    return node;
  }

  /**
   * The test JVM's real classpath. Surefire may start the test JVM from a manifest-only jar; it
   * then passes the real classpath in {@code surefire.test.class.path}.
   */
  static String classpath() {
    String surefire = System.getProperty("surefire.test.class.path");
    if (surefire != null && !surefire.isBlank()) {
      return surefire;
    }
    return System.getProperty("java.class.path");
  }

  /** The last lines of every node's stdout and stderr, every incarnation, for failure reports. */
  String logTails(int lines) {
    StringBuilder out = new StringBuilder("cluster ").append(dir).append('\n');
    out.append("lifecycle: ").append(lifecycle).append('\n');
    try (var files = Files.list(dir)) {
      for (Path log : files.filter(p -> p.toString().endsWith(".log")).sorted().toList()) {
        out.append("---- ").append(log.getFileName()).append(" (last ").append(lines);
        out.append(" lines) ----\n");
        for (String line : tail(log, lines)) {
          out.append(line).append('\n');
        }
      }
    } catch (IOException e) {
      out.append("cannot list logs: ").append(e).append('\n');
    }
    return out.toString();
  }

  private static List<String> tail(Path file, int lines) throws IOException {
    ArrayDeque<String> last = new ArrayDeque<>();
    try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        if (last.size() == lines) {
          last.removeFirst();
        }
        last.addLast(line);
      }
    }
    return new ArrayList<>(last);
  }

  /** Kills every node and waits for each to exit. */
  @Override
  public void close() throws Exception {
    for (Node node : nodes.values()) {
      node.process.destroyForcibly();
    }
    for (Node node : nodes.values()) {
      node.process.waitFor(EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      LIVE.remove(node.process);
      node.joinPumps();
    }
  }

  /**
   * A port free now, below the kernel's ephemeral range (32768 and up here): a port the kernel
   * handed out for {@code bind(0)} can be taken again by any outgoing connection before the node
   * binds it (one CI run: "Address already in use" at a replica's start).
   */
  private static int freePort() throws IOException {
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = java.util.concurrent.ThreadLocalRandom.current().nextInt(10_000, 32_000);
      try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        return socket.getLocalPort();
      } catch (IOException taken) {
        // try another
      }
    }
    throw new IOException("no free port in [10000, 32000) after 200 attempts");
  }

  /** One incarnation of a node: its process, its ready line, the threads that copy its output. */
  private final class Node {
    final int id;
    final int incarnation;
    final String name;
    final Process process;
    final CompletableFuture<String> ready = new CompletableFuture<>();
    final List<Thread> pumps = new ArrayList<>();
    volatile String storageLine;

    Node(int id, int incarnation, String name, Process process) throws IOException {
      this.id = id;
      this.incarnation = incarnation;
      this.name = name;
      this.process = process;
      String prefix =
          "FlexLog "
              + (layout.sequencers().contains(id) ? "sequencer " : "replica ")
              + id
              + " ready on ";
      pumps.add(pump(process.getInputStream(), dir.resolve(name + ".stdout.log"), prefix));
      pumps.add(pump(process.getErrorStream(), dir.resolve(name + ".stderr.log"), null));
      process
          .onExit()
          .thenRun(
              () ->
                  ready.completeExceptionally(
                      new IllegalStateException(
                          name + " exited with " + process.exitValue() + " before ready")));
    }

    private Thread pump(InputStream in, Path file, String readyPrefix) throws IOException {
      PrintWriter out = new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8));
      Thread thread =
          new Thread(
              () -> {
                try (out;
                    BufferedReader reader =
                        new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                  for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    out.println(line);
                    out.flush();
                    if (line.startsWith("replica " + id + " storage:")) {
                      storageLine = line;
                    }
                    if (readyPrefix != null && line.startsWith(readyPrefix)) {
                      ready.complete(line);
                    }
                  }
                } catch (IOException e) {
                  out.println("[test-cluster] output pump failed: " + e);
                }
              },
              name + "-" + file.getFileName());
      thread.setDaemon(true);
      thread.start();
      return thread;
    }

    String awaitReady() throws Exception {
      try {
        return ready.get(READY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        throw new IllegalStateException(name + " not ready within " + READY_TIMEOUT, e);
      } catch (ExecutionException e) {
        throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
      }
    }

    void joinPumps() {
      for (Thread pump : pumps) {
        try {
          pump.join(EXIT_TIMEOUT.toMillis());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new UncheckedIOException(new IOException("interrupted joining " + pump, e));
        }
      }
    }
  }
}
