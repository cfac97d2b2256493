package io.flexlog.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A private network of Linux network namespaces for partition tests (docs/testing.md, "Partitions
 * on real processes"): one namespace per node, each with the address {@code 10.231.S.(10 + i)} on a
 * veth attached to a bridge in a hub namespace, and a veth from this (the test's) namespace to the
 * hub with {@code 10.231.S.1}, so that the test's clients reach every node. Nodes run with {@link
 * #exec}; {@link #cut} drops every packet between a node and the given peers (iptables rules inside
 * the node's own namespace, so TCP connections stay open and retransmit, as across a real
 * partition) and {@link #heal} removes them. Nothing outside the namespaces this class creates is
 * touched, except the one veth in this namespace, which goes away with the hub.
 *
 * <p>Needs root, {@code ip} and {@code iptables}; {@link #unavailableReason} says why not.
 * Threading: one controlling thread.
 */
final class NetworkNamespaces implements AutoCloseable {
  private static final String PREFIX = "flexlog-part-";
  private static final String HUB = "hub";

  private final String name;
  private final String subnet;
  private final int nodes;
  private final String hostLink;
  private final List<String> created = new ArrayList<>();

  private NetworkNamespaces(String name, String subnet, int nodes) {
    this.name = name;
    this.subnet = subnet;
    this.nodes = nodes;
    this.hostLink = "flp" + ProcessHandle.current().pid();
  }

  /** Why namespaces cannot be used here, or empty when they can. */
  static Optional<String> unavailableReason() {
    if (!"root".equals(System.getProperty("user.name"))) {
      return Optional.of(
          "network namespaces need root; running as " + System.getProperty("user.name"));
    }
    for (String tool : List.of("ip", "iptables")) {
      if (!onPath(tool)) {
        return Optional.of("'" + tool + "' is not on the PATH");
      }
    }
    String probe = PREFIX + "probe-" + ProcessHandle.current().pid();
    try {
      run("ip", "netns", "add", probe);
    } catch (IOException e) {
      return Optional.of("cannot create a network namespace: " + e.getMessage());
    }
    try {
      run(
          "ip",
          "netns",
          "exec",
          probe,
          "iptables",
          "-w",
          "-A",
          "INPUT",
          "-s",
          "10.231.0.2",
          "-j",
          "DROP");
      return Optional.empty();
    } catch (IOException e) {
      return Optional.of("iptables does not work in a network namespace: " + e.getMessage());
    } finally {
      try {
        run("ip", "netns", "del", probe);
      } catch (IOException e) {
        System.err.println("[netns] " + e.getMessage());
      }
    }
  }

  private static boolean onPath(String tool) {
    String path = System.getenv().getOrDefault("PATH", "") + ":/sbin:/usr/sbin";
    return Arrays.stream(path.split(":")).anyMatch(dir -> Files.isExecutable(Path.of(dir, tool)));
  }

  /**
   * Creates the hub, {@code nodes} node namespaces and the link from this namespace; removes the
   * namespaces of earlier runs whose process is gone first. On failure, what was created is
   * removed.
   */
  static NetworkNamespaces create(int nodes) throws IOException {
    removeStale();
    long pid = ProcessHandle.current().pid();
    NetworkNamespaces net =
        new NetworkNamespaces(PREFIX + pid + "-", "10.231." + freeSubnet(), nodes);
    try {
      net.build();
      return net;
    } catch (IOException | RuntimeException e) {
      net.close();
      throw e;
    }
  }

  private void build() throws IOException {
    String hub = namespace(HUB);
    add(hub);
    run("ip", "-n", hub, "link", "set", "lo", "up");
    run("ip", "-n", hub, "link", "add", "br0", "type", "bridge");
    run("ip", "-n", hub, "link", "set", "br0", "up");
    run("ip", "link", "add", hostLink, "type", "veth", "peer", "name", "up0", "netns", hub);
    run("ip", "addr", "add", subnet + ".1/24", "dev", hostLink);
    run("ip", "link", "set", hostLink, "up");
    run("ip", "-n", hub, "link", "set", "up0", "master", "br0", "up");
    for (int i = 0; i < nodes; i++) {
      String ns = namespace("n" + i);
      add(ns);
      run("ip", "-n", ns, "link", "set", "lo", "up");
      run(
          "ip", "-n", hub, "link", "add", "n" + i, "type", "veth", "peer", "name", "eth0", "netns",
          ns);
      run("ip", "-n", hub, "link", "set", "n" + i, "master", "br0", "up");
      run("ip", "-n", ns, "addr", "add", host(i) + "/24", "dev", "eth0");
      run("ip", "-n", ns, "link", "set", "eth0", "up");
    }
  }

  private void add(String ns) throws IOException {
    run("ip", "netns", "add", ns);
    created.add(ns);
  }

  /** Node {@code i}'s address, on which it listens. */
  String host(int i) {
    return subnet + "." + (10 + i);
  }

  /** This namespace's address on the private network (the test's clients connect from it). */
  String testHost() {
    return subnet + ".1";
  }

  /**
   * {@code command} run in node {@code i}'s namespace ({@code ip netns exec} execs it: same pid).
   */
  List<String> exec(int i, List<String> command) {
    List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", namespace("n" + i)));
    full.addAll(command);
    return full;
  }

  /**
   * Drops every packet between node {@code i} and each of {@code peers}, both ways, from now on:
   * connections neither close nor reset, their data waits in the kernels until {@link #heal}.
   */
  void cut(int i, int... peers) throws IOException {
    for (int peer : peers) {
      iptables(i, "-A", "INPUT", "-s", host(peer), "-j", "DROP");
      iptables(i, "-A", "OUTPUT", "-d", host(peer), "-j", "DROP");
    }
  }

  /** Removes every cut of node {@code i}. */
  void heal(int i) throws IOException {
    iptables(i, "-F", "INPUT");
    iptables(i, "-F", "OUTPUT");
  }

  private void iptables(int i, String... rule) throws IOException {
    List<String> command = new ArrayList<>(List.of("iptables", "-w"));
    command.addAll(List.of(rule));
    run(exec(i, command).toArray(String[]::new));
  }

  private String namespace(String suffix) {
    return name + suffix;
  }

  /** Deletes the namespaces (with them every veth, also the one in this namespace). */
  @Override
  public void close() {
    try {
      run("ip", "link", "del", hostLink);
    } catch (IOException e) {
      // Not created, or gone with the hub already.
    }
    for (int k = created.size() - 1; k >= 0; k--) {
      try {
        run("ip", "netns", "del", created.get(k));
      } catch (IOException e) {
        System.err.println("[netns] " + e.getMessage());
      }
    }
    created.clear();
  }

  /** Removes the namespaces of runs whose test process is gone (a killed JVM cleans up nothing). */
  private static void removeStale() throws IOException {
    for (String ns : run("ip", "netns", "list").split("\n")) {
      String nsName = ns.split(" ")[0].trim();
      if (!nsName.startsWith(PREFIX)) {
        continue;
      }
      String rest = nsName.substring(PREFIX.length());
      int dash = rest.indexOf('-');
      if (dash <= 0 || !rest.substring(0, dash).chars().allMatch(Character::isDigit)) {
        continue;
      }
      long owner = Long.parseLong(rest.substring(0, dash));
      if (ProcessHandle.of(owner).map(ProcessHandle::isAlive).orElse(false)) {
        continue;
      }
      try {
        run("ip", "link", "del", "flp" + owner);
      } catch (IOException e) {
        // Gone already.
      }
      killProcessesIn(nsName);
      run("ip", "netns", "del", nsName);
    }
  }

  /**
   * Kills what still runs in {@code ns}: the nodes of a test JVM that was killed outlive it, and
   * deleting their namespace would leave them running, unreachable, taking CPU from later tests.
   */
  private static void killProcessesIn(String ns) throws IOException {
    for (String pid : run("ip", "netns", "pids", ns).trim().split("\\s+")) {
      if (!pid.isEmpty()) {
        ProcessHandle.of(Long.parseLong(pid)).ifPresent(ProcessHandle::destroyForcibly);
      }
    }
  }

  /** A third octet whose 10.231.S.0/24 no interface of this namespace uses. */
  private static int freeSubnet() throws IOException {
    String addresses = run("ip", "-o", "-4", "addr", "show");
    int start = (int) (ProcessHandle.current().pid() % 200);
    for (int k = 0; k < 200; k++) {
      int s = 20 + (start + k) % 200;
      if (!addresses.contains(" 10.231." + s + ".")) {
        return s;
      }
    }
    throw new IOException("every subnet 10.231.20-219.0/24 is in use:\n" + addresses);
  }

  /** Runs {@code command}; its output, or an IOException with its output when it fails. */
  static String run(String... command) throws IOException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", command) + " did not finish within 30 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      throw new IOException("interrupted: " + String.join(" ", command), e);
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.exitValue() != 0) {
      throw new IOException(
          String.join(" ", command) + " failed (exit " + p.exitValue() + "): " + out.trim());
    }
    return out;
  }
}
