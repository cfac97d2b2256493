package io.flexlog.testcontainers;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.LogRecord;
import io.flexlog.client.RecordStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * docker/compose.yaml: the four-node cluster comes up with health-gated start order on the host
 * network, and keeps every acknowledged record readable across a {@code docker kill} of one replica
 * and its restart.
 */
@DockerTest
class ComposeClusterIT {
  private static final String BOOTSTRAP = "127.0.0.1:7170";
  private static final List<Integer> PORTS =
      List.of(7170, 7171, 7172, 7173, 7190, 9470, 9471, 9472, 9473);
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
  private static final String COLOR = "global";

  @RegisterExtension final LogsOnFailure logs = new LogsOnFailure();
  private ComposeProject project;

  /** After the failure report took the logs (exception handlers run before this). */
  @AfterEach
  void down() {
    if (project != null) {
      project.down();
    }
  }

  @Test
  void shouldKeepEveryAcknowledgedRecordWhenAReplicaIsKilledAndRestarted() throws Exception {
    assertPortsFree();
    project = project();
    logs.watch("docker compose logs", project::logs);
    project.run("up", "--detach").check();
    awaitLine(project.containerId("sequencer-0"), "FlexLog sequencer 0 ready on", 1);
    for (int replica = 1; replica <= 3; replica++) {
      awaitLine(project.containerId("replica-" + replica), "FlexLog replica " + replica, 1);
    }
    for (String service : List.of("sequencer-0", "replica-1", "replica-2", "replica-3")) {
      assertThat(awaitHealth(project.containerId(service))).as(service).isEqualTo("healthy");
    }
    // Host networking only: Compose made no network for the project.
    assertThat(docker("network", "ls", "--format", "{{.Name}}").output())
        .doesNotContain(project.name());

    NavigableMap<Long, String> acked = new ConcurrentSkipListMap<>();
    FlexLogConfig config =
        FlexLogConfig.builder()
            .bootstrapServers(BOOTSTRAP)
            .deliveryTimeout(Duration.ofSeconds(15))
            .build();
    try (FlexLog log = FlexLog.connect(config)) {
      appendSome(log, "before the kill", 50, acked);

      String replica2 = project.containerId("replica-2");
      docker("kill", replica2).check();
      assertThat(
              docker("inspect", "-f", "{{.State.Running}} {{.State.ExitCode}}", replica2)
                  .check()
                  .output()
                  .trim())
          .isEqualTo("false 137");
      readAll(log, acked); // reads move to the other replicas of the shard
      // Appends wait for the killed replica; each one acknowledged must survive too.
      List<CompletableFuture<Long>> waiting = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        waiting.add(log.appendAsync(COLOR, ("while replica 2 is down " + i).getBytes(UTF_8)));
      }

      project.run("start", "replica-2").check();
      awaitLine(replica2, "FlexLog replica 2 ready on", 2);
      int lost = collect(waiting, "while replica 2 is down ", acked);
      appendSome(log, "after the restart", 50, acked);

      readAll(log, acked);
      subscribeAll(log, acked);
      assertThat(acked).hasSizeGreaterThanOrEqualTo(100);
      System.out.printf(
          "compose cluster: %d records acknowledged and read back, %d appends made while"
              + " replica 2 was down failed%n",
          acked.size(), lost);
    }
  }

  private static ComposeProject project() {
    Path file = Path.of(System.getProperty("flexlog.compose.file", "../docker/compose.yaml"));
    String name = "flexlog-it-" + UUID.randomUUID().toString().substring(0, 8);
    try {
      return ComposeProject.of(file, name, DockerAvailable.image());
    } catch (IllegalStateException e) {
      if (Boolean.getBoolean("flexlog.docker.required")) {
        throw e;
      }
      Assumptions.abort("container test skipped: " + e.getMessage());
      throw e;
    }
  }

  private static void assertPortsFree() throws IOException {
    InetAddress loopback = InetAddress.getByName("127.0.0.1");
    for (int port : PORTS) {
      try (ServerSocket socket = new ServerSocket()) {
        socket.bind(new InetSocketAddress(loopback, port));
      } catch (IOException e) {
        throw new AssertionError(
            "port "
                + port
                + " on 127.0.0.1 is in use; docker/compose.yaml needs 7170-7173, 7190 and"
                + " 9470-9473",
            e);
      }
    }
  }

  private static void appendSome(FlexLog log, String prefix, int count, Map<Long, String> acked) {
    for (int i = 0; i < count; i++) {
      String value = prefix + " " + i;
      acked.put(log.append(COLOR, value.getBytes(UTF_8)), value);
    }
  }

  /** Adds the acknowledged ones of {@code appends} to {@code acked}; returns how many failed. */
  private static int collect(
      List<CompletableFuture<Long>> appends, String prefix, Map<Long, String> acked)
      throws InterruptedException {
    int failed = 0;
    for (int i = 0; i < appends.size(); i++) {
      try {
        acked.put(appends.get(i).get(60, TimeUnit.SECONDS), prefix + i);
      } catch (ExecutionException e) {
        failed++; // timed out while the replica was down: it may appear, and is not checked
      } catch (java.util.concurrent.TimeoutException e) {
        throw new AssertionError("append " + i + " neither succeeded nor failed within 60 s", e);
      }
    }
    return failed;
  }

  private static void readAll(FlexLog log, Map<Long, String> acked) {
    acked.forEach(
        (sn, value) ->
            assertThat(log.read(COLOR, sn))
                .as("record at SN %d", sn)
                .hasValueSatisfying(
                    r -> assertThat(new String(r.payload(), UTF_8)).isEqualTo(value)));
  }

  /** A subscription from 0 delivers every acknowledged record, in SN order. */
  private static void subscribeAll(FlexLog log, NavigableMap<Long, String> acked) {
    long last = acked.lastKey();
    List<Long> seen = new ArrayList<>();
    try (RecordStream stream = log.subscribe(COLOR, 0)) {
      while (seen.isEmpty() || seen.get(seen.size() - 1) < last) {
        LogRecord record = stream.poll(Duration.ofSeconds(30));
        assertThat(record).as("subscription record after %s", seen).isNotNull();
        seen.add(record.sn());
        String value = acked.get(record.sn());
        if (value != null) {
          assertThat(new String(record.payload(), UTF_8)).isEqualTo(value);
        }
      }
    }
    assertThat(seen).isSorted().containsAll(acked.keySet());
  }

  private static void awaitLine(String container, String line, int count) throws Exception {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      String output = docker("logs", container).output();
      if (DataVolumeIT.occurrences(output, line) >= count) {
        return;
      }
      Thread.sleep(250);
    }
    throw new AssertionError(
        "container " + container + " did not print '" + line + "' " + count + " time(s)");
  }

  private static String awaitHealth(String container) throws Exception {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    String status = "";
    while (System.nanoTime() < deadline) {
      status = docker("inspect", "-f", "{{.State.Health.Status}}", container).output().trim();
      if (!"starting".equals(status)) {
        return status;
      }
      Thread.sleep(250);
    }
    return status;
  }

  private static Commands.Result docker(String... args) {
    List<String> command = new ArrayList<>();
    command.add("docker");
    command.addAll(List.of(args));
    return Commands.run(Duration.ofSeconds(60), Map.of(), command);
  }
}
