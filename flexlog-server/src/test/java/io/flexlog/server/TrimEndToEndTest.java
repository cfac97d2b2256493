package io.flexlog.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.client.FlexLog;
import io.flexlog.client.LogRecord;
import io.flexlog.client.RecordStream;
import io.flexlog.client.TrimResult;
import io.flexlog.core.error.InvalidArgumentException;
import io.flexlog.core.error.TrimmedException;
import io.flexlog.core.error.UnknownColorException;
import io.flexlog.core.testing.FreePorts;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.server.dev.DevCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Trim end to end (docs/architecture.md#trim) on the embedded cluster over real sockets: color
 * {@code global} has two shards (one attached to its child {@code left}), each on three replicas,
 * so a trim must reach six shard replicas on three nodes.
 */
class TrimEndToEndTest {
  private static final int RECORDS = 20;
  private static final int TRIM_AT = 8; // the 8th SN, 0-based index 7
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  @TempDir Path data;
  private DevCluster cluster;
  private FlexLog log;
  private final long[] sns = new long[RECORDS];

  @BeforeEach
  void start() throws Exception {
    int port = FreePorts.consecutive(4);
    cluster =
        DevCluster.start(
            SubscribeEndToEndTest.twoShards(port),
            new DevCluster.Options(
                data, port, StorageEngines.MAPPED, DurabilityMode.PROCESS, 64L << 20),
            new SimpleMeterRegistry(),
            new PrintStream(new ByteArrayOutputStream()));
    log = FlexLog.connect(cluster.bootstrap());
    for (int i = 0; i < RECORDS; i++) {
      sns[i] = log.append("global", payload(i));
    }
  }

  @AfterEach
  void stop() {
    if (log != null) {
      log.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static byte[] payload(int i) {
    return ("record-" + i).getBytes(StandardCharsets.UTF_8);
  }

  private long trimPoint() {
    return sns[TRIM_AT - 1];
  }

  @Test
  void shouldRefuseReadsAtOrBelowTheTrimPointAndServeTheRest() {
    TrimResult result = log.trim("global", trimPoint());

    assertThat(result.trimPoint()).isEqualTo(trimPoint());
    assertThat(result.head()).isEqualTo(trimPoint() + 1);
    assertThat(result.tail()).isGreaterThanOrEqualTo(sns[RECORDS - 1]);
    for (int i = 0; i < TRIM_AT; i++) {
      long sn = sns[i];
      assertThatThrownBy(() -> log.read("global", sn))
          .isInstanceOf(TrimmedException.class)
          .hasMessageContaining("SN " + sn)
          .hasMessageContaining("'global'")
          .hasMessageContaining("trim point " + trimPoint());
    }
    for (int i = TRIM_AT; i < RECORDS; i++) {
      assertThat(log.read("global", sns[i]))
          .get()
          .extracting(LogRecord::payload)
          .isEqualTo(payload(i));
    }
  }

  @Test
  void shouldStartASubscriptionFromZeroAfterTheTrimPoint() {
    log.trim("global", trimPoint());

    List<Long> seen = new ArrayList<>();
    List<byte[]> payloads = new ArrayList<>();
    try (RecordStream stream = log.subscribe("global", 0)) {
      long deadline = System.nanoTime() + PATIENCE.toNanos();
      while (seen.size() < RECORDS - TRIM_AT && System.nanoTime() < deadline) {
        LogRecord record = stream.poll(Duration.ofMillis(200));
        if (record != null) {
          seen.add(record.sn());
          payloads.add(record.payload());
        }
      }
    }
    List<Long> expected = new ArrayList<>();
    for (int i = TRIM_AT; i < RECORDS; i++) {
      expected.add(sns[i]);
    }
    assertThat(seen).containsExactlyElementsOf(expected);
    assertThat(payloads.get(0)).isEqualTo(payload(TRIM_AT));
  }

  @Test
  void shouldRefuseASubscriptionFromATrimmedSn() {
    log.trim("global", trimPoint());

    try (RecordStream stream = log.subscribe("global", sns[2])) {
      assertThatThrownBy(
              () -> {
                long deadline = System.nanoTime() + PATIENCE.toNanos();
                while (System.nanoTime() < deadline) {
                  stream.poll(Duration.ofMillis(200));
                }
              })
          .isInstanceOf(TrimmedException.class)
          .hasMessageContaining("color 'global'")
          .hasMessageContaining("trimmed through SN " + trimPoint());
    }
  }

  @Test
  void shouldRefuseToTrimBeyondTheTailAndKeepEveryRecord() {
    long beyond = sns[RECORDS - 1] + 1_000;
    assertThatThrownBy(() -> log.trim("global", beyond))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("trim beyond the tail")
        .hasMessageContaining(Long.toString(beyond));
    assertThat(log.read("global", sns[0]))
        .get()
        .extracting(LogRecord::payload)
        .isEqualTo(payload(0));
  }

  @Test
  void shouldRefuseToTrimAnUnknownColorOrANonPositiveSn() {
    assertThatThrownBy(() -> log.trim("nope", 1)).isInstanceOf(UnknownColorException.class);
    assertThatThrownBy(() -> log.trim("global", 0))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining(">= 1");
  }
}
