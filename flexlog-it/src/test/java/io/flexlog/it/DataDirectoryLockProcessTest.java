package io.flexlog.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.testing.FreePorts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The data-directory lock between two real processes (docs/operations.md, "Data directories"): a
 * second {@code flexlog dev} on the directory of a running one, or a node command on one of its
 * node directories, exits with one line naming the directory and the holder's pid, and changes no
 * byte of any file there; a dev cluster whose start fails leaves no directory behind.
 */
class DataDirectoryLockProcessTest {
  private static final long READY_TIMEOUT_S = 60;
  private final List<Process> started = new ArrayList<>();

  @TempDir Path dir;

  @AfterEach
  void stopProcesses() throws InterruptedException {
    for (Process p : started) {
      p.destroy();
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void shouldRefuseASecondDevClusterOnTheSameDirectoryAndChangeNothing() throws Exception {
    Path data = dir.resolve("data");
    Process first = start(dev(data, FreePorts.consecutive(4)));
    awaitReady(first);
    Map<String, String> before = settledDigest(data);

    Process second = start(dev(data, FreePorts.consecutive(4)));
    assertThat(second.waitFor(READY_TIMEOUT_S, TimeUnit.SECONDS)).isTrue();
    List<String> stderr = stderrOf(second);

    assertThat(second.exitValue()).isEqualTo(1);
    assertThat(stderr).hasSize(1);
    assertThat(stderr.get(0))
        .contains("data directory " + data.toAbsolutePath())
        .contains("pid " + first.pid())
        .contains("flexlog dev cluster");
    assertThat(digest(data)).isEqualTo(before);
    assertThat(first.isAlive()).isTrue();
  }

  @Test
  void shouldRefuseANodeCommandOnANodeDirectoryOfARunningDevCluster() throws Exception {
    Path data = dir.resolve("data");
    int base = FreePorts.consecutive(4);
    Process first = start(dev(data, base));
    awaitReady(first);
    Path config = dir.resolve("cluster.yaml");
    Files.writeString(
        config,
        """
        cluster:
          nodes:
            - {id: 0, kind: sequencer, host: 127.0.0.1, port: %d}
            - {id: 1, kind: replica, host: 127.0.0.1, port: %d}
          colors:
            - {id: 0, name: global, sequencer: 0}
          shards:
            - {id: 0, color: global, replicas: [1]}
        """
            .formatted(FreePorts.consecutive(1), FreePorts.consecutive(1)));
    Map<String, String> before = settledDigest(data);

    List<String> command = java();
    command.addAll(
        List.of(
            "replica",
            "--config",
            config.toString(),
            "--node-id",
            "1",
            "--data",
            data.resolve("replica-1").toString()));
    Process second = start(command);
    assertThat(second.waitFor(READY_TIMEOUT_S, TimeUnit.SECONDS)).isTrue();
    List<String> stderr = stderrOf(second);

    assertThat(second.exitValue()).isEqualTo(1);
    assertThat(stderr).hasSize(1);
    assertThat(stderr.get(0))
        .contains("data directory " + data.resolve("replica-1").toAbsolutePath())
        .contains("pid " + first.pid());
    assertThat(digest(data)).isEqualTo(before);
  }

  @Test
  void shouldLeaveNoDirectoryBehindWhenADevClusterCannotBindItsPort() throws Exception {
    Path data = dir.resolve("fresh").resolve("data");
    int base = FreePorts.consecutive(4);
    try (ServerSocket taken = new ServerSocket(base + 2, 1, InetAddress.getLoopbackAddress())) {
      Process failed = start(dev(data, base));
      assertThat(failed.waitFor(READY_TIMEOUT_S, TimeUnit.SECONDS)).isTrue();
      assertThat(failed.exitValue()).isEqualTo(1);
    }
    assertThat(dir.resolve("fresh")).doesNotExist();
  }

  private static List<String> dev(Path data, int port) {
    List<String> command = java();
    command.addAll(
        List.of(
            "dev",
            "--data",
            data.toString(),
            "--port",
            Integer.toString(port),
            "--admin-port",
            Integer.toString(FreePorts.consecutive(1)),
            "--engine",
            "mapped",
            "--pm-bytes",
            "16MiB",
            "--cache-bytes",
            "0"));
    return command;
  }

  private static List<String> java() {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    command.addAll(List.of("-cp", TestCluster.classpath(), "io.flexlog.server.cli.FlexLogCli"));
    return command;
  }

  // stderr goes to a file: a running node logs there, and a full pipe would stall it.
  private Process start(List<String> command) throws IOException {
    Path err = dir.resolve("process-" + started.size() + ".err");
    Process process =
        new ProcessBuilder(command).directory(dir.toFile()).redirectError(err.toFile()).start();
    started.add(process);
    return process;
  }

  private List<String> stderrOf(Process process) throws IOException {
    return lines(Files.readAllBytes(dir.resolve("process-" + started.indexOf(process) + ".err")));
  }

  private static void awaitReady(Process process) throws Exception {
    BufferedReader out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(READY_TIMEOUT_S);
    String line;
    while ((line = out.readLine()) != null) {
      if (line.startsWith("FlexLog dev cluster ready")) {
        return;
      }
      assertThat(System.nanoTime()).as("ready line in time").isLessThan(deadline);
    }
    throw new AssertionError("dev exited before it was ready");
  }

  /** Every regular file under {@code root} (the lock file too) and the SHA-256 of its bytes. */
  /**
   * The digest once the running cluster's own start-up writes are done: its replicas save their
   * sync points in the background soon after start (docs/architecture.md#durable-sync-points), and
   * only what the refused process does is under test.
   */
  private static Map<String, String> settledDigest(Path root) throws Exception {
    Map<String, String> last = digest(root);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      Thread.sleep(1500);
      Map<String, String> now = digest(root);
      if (now.equals(last)) {
        return now;
      }
      last = now;
    }
    throw new AssertionError("the running dev cluster kept changing " + root + " for 20 s");
  }

  private static Map<String, String> digest(Path root) throws Exception {
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.filter(Files::isRegularFile).toList()) {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        files.put(
            root.relativize(p).toString(),
            HexFormat.of().formatHex(sha.digest(Files.readAllBytes(p))));
      }
    }
    return files;
  }

  private static List<String> lines(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8).lines().filter(l -> !l.isBlank()).toList();
  }
}
