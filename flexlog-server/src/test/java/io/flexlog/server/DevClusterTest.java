package io.flexlog.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.LogRecord;
import io.flexlog.core.error.RecordTooLargeException;
import io.flexlog.core.error.UnknownColorException;
import io.flexlog.core.model.Sn;
import io.flexlog.core.testing.FreePorts;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.server.dev.DevCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** End-to-end behaviour of an embedded cluster: real sockets, real logs, one JVM. */
class DevClusterTest {
  @TempDir Path data;
  private DevCluster cluster;
  private int port;

  private DevCluster start() throws Exception {
    if (port == 0) {
      port = FreePorts.consecutive(4);
    }
    cluster =
        DevCluster.start(
            new DevCluster.Options(
                data, port, StorageEngines.MAPPED, DurabilityMode.PROCESS, 64L << 20),
            new SimpleMeterRegistry(),
            new PrintStream(new ByteArrayOutputStream()));
    return cluster;
  }

  private FlexLog client() {
    return FlexLog.connect(
        FlexLogConfig.builder()
            .bootstrapServers(cluster.bootstrap())
            .requestTimeout(Duration.ofMillis(500))
            .deliveryTimeout(Duration.ofSeconds(20))
            .readTimeout(Duration.ofSeconds(5))
            .build());
  }

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void shouldReadBackAppendedRecordsWithIncreasingSns() throws Exception {
    start();
    try (FlexLog log = client()) {
      long previous = 0;
      for (int i = 0; i < 100; i++) {
        long sn = log.append("global", bytes("record-" + i));
        assertThat(sn).isGreaterThan(previous);
        previous = sn;
        assertThat(log.read("global", sn).map(LogRecord::payload)).contains(bytes("record-" + i));
      }
    }
  }

  @Test
  void shouldRejectUnknownColorWithTypedError() throws Exception {
    start();
    try (FlexLog log = client()) {
      assertThatThrownBy(() -> log.append("no-such-color", bytes("x")))
          .isInstanceOf(UnknownColorException.class)
          .hasMessageContaining("no-such-color");
      assertThatThrownBy(() -> log.read("no-such-color", 1))
          .isInstanceOf(UnknownColorException.class);
    }
  }

  @Test
  void shouldRejectOversizedRecordAndKeepConnectionUsable() throws Exception {
    start();
    try (FlexLog log = client()) {
      assertThatThrownBy(() -> log.append("global", new byte[(1 << 20) + 1]))
          .isInstanceOf(RecordTooLargeException.class)
          .hasMessageContaining("max-record-bytes");
      long sn = log.append("global", new byte[1 << 20]);
      assertThat(log.read("global", sn).orElseThrow().payload()).hasSize(1 << 20);
    }
  }

  @Test
  void shouldAnswerHoleForSnBelowWatermarkThatWasNeverAssigned() throws Exception {
    start();
    try (FlexLog log = client()) {
      long sn = log.append("global", bytes("a"));
      // SN 1 of epoch 0 is never issued: epochs start at 1.
      assertThat(log.read("global", Sn.of(0, 1))).isEmpty();
      assertThat(log.read("global", sn)).isPresent();
    }
  }

  @Test
  void shouldCloseOnlyTheConnectionThatSentAMalformedFrame() throws Exception {
    start();
    try (FlexLog log = client()) {
      long before = log.append("global", bytes("before"));
      int replicaPort = cluster.topology().node(1).port();
      try (Socket bad = new Socket(InetAddress.getLoopbackAddress(), replicaPort)) {
        OutputStream out = bad.getOutputStream();
        out.write(new byte[] {0, 0, 0, 12, 0x12, 0x34, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0});
        out.flush();
        bad.setSoTimeout(5000);
        InputStream in = bad.getInputStream();
        byte[] answer = in.readAllBytes(); // an ERROR frame, then end of stream
        assertThat(answer.length).isGreaterThan(16);
        assertThat(answer[7]).isEqualTo((byte) 8); // ERROR
      }
      long after = log.append("global", bytes("after"));
      assertThat(after).isGreaterThan(before);
      assertThat(log.read("global", before).orElseThrow().payload()).isEqualTo(bytes("before"));
    }
  }

  @Test
  void shouldKeepEveryRecordAcrossClusterRestart() throws Exception {
    start();
    List<Long> sns = new ArrayList<>();
    try (FlexLog log = client()) {
      for (int i = 0; i < 50; i++) {
        sns.add(log.append("global", bytes("v" + i)));
      }
    }
    cluster.close();
    start();
    try (FlexLog log = client()) {
      for (int i = 0; i < sns.size(); i++) {
        Optional<LogRecord> record = log.read("global", sns.get(i));
        assertThat(record.map(LogRecord::payload)).contains(bytes("v" + i));
      }
      long next = log.append("global", bytes("after restart"));
      assertThat(Sn.epoch(next)).isGreaterThan(Sn.epoch(sns.get(sns.size() - 1)));
      assertThat(next).isGreaterThan(sns.get(sns.size() - 1));
    }
  }

  private static byte[] record(int i) {
    byte[] bytes = new byte[32 * 1024];
    for (int j = 0; j < bytes.length; j++) {
      bytes[j] = (byte) (i * 31 + j * 7);
    }
    return bytes;
  }

  /** Waits until no replica's PM is nearly full: the test writes no faster than tiering moves. */
  private static void awaitPmHeadroom(SimpleMeterRegistry registry) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    for (int node = 1; node <= DevCluster.REPLICAS; node++) {
      String id = Integer.toString(node);
      while (registry.get("flexlog.storage.pm.used.bytes").tag("node", id).gauge().value()
          > 0.85
              * registry.get("flexlog.storage.pm.capacity.bytes").tag("node", id).gauge().value()) {
        assertThat(System.nanoTime())
            .as("PM of replica %s freed by tiering", id)
            .isLessThan(deadline);
        Thread.sleep(5);
      }
    }
  }

  @Test
  void shouldMoveOldRecordsToSsdSegmentsAndReadThemBackAcrossRestart() throws Exception {
    port = FreePorts.consecutive(4);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    DevCluster.Options options =
        new DevCluster.Options(
            data, port, StorageEngines.MAPPED, DurabilityMode.PROCESS, 8L << 20, 1L << 20);
    cluster = DevCluster.start(options, registry, new PrintStream(new ByteArrayOutputStream()));
    int records = 600; // 19 MiB through 8 MiB of PM and 1 MiB of cache per replica
    List<Long> sns = new ArrayList<>();
    try (FlexLog log = client()) {
      for (int i = 0; i < records; i++) {
        awaitPmHeadroom(registry);
        sns.add(log.append("global", record(i)));
      }
      for (int i = 0; i < records; i++) {
        assertThat(log.read("global", sns.get(i)).orElseThrow().payload())
            .as("record %d", i)
            .isEqualTo(record(i));
      }
    }
    assertThat(registry.get("flexlog.storage.tiering.moves").tag("node", "1").counter().count())
        .isPositive();
    try (var files = java.nio.file.Files.list(data.resolve("replica-1").resolve("segments"))) {
      assertThat(files.filter(f -> f.toString().endsWith(".seg")).count()).isPositive();
    }

    cluster.close();
    cluster =
        DevCluster.start(
            options, new SimpleMeterRegistry(), new PrintStream(new ByteArrayOutputStream()));
    try (FlexLog log = client()) {
      for (int i = 0; i < records; i += 7) {
        assertThat(log.read("global", sns.get(i)).orElseThrow().payload())
            .as("record %d after restart", i)
            .isEqualTo(record(i));
      }
    }
  }
}
