package io.flexlog.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.core.model.Sn;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tokens of trimmed records on real processes (docs/architecture.md#retention, "Trimmed tokens"): a
 * record is appended with a token of the test's choice, trimmed, and then every node is killed with
 * SIGKILL and restarted, so that neither the replicas' logs nor the sequencer's memory hold the
 * token any more. A late copy of the record (a retry that stayed in the network, a re-sent atomic
 * member) must get the record's SN from every replica, not a second one.
 */
class TrimmedTokenProcessTest {
  private static final int SHARD = 0;
  private static final long SESSION = 0x7e57_0000_0001L;
  private static final Duration WAIT = Duration.ofSeconds(20);

  @RegisterExtension final NodeLogsOnFailure nodeLogs = new NodeLogsOnFailure();
  @TempDir Path dir;
  private TestCluster cluster;

  @BeforeEach
  void startCluster() throws Exception {
    cluster = nodeLogs.watch(TestCluster.create(dir));
    cluster.start();
  }

  @AfterEach
  void stopCluster() throws Exception {
    cluster.close();
  }

  @Test
  @Timeout(180)
  void shouldAnswerALateCopyOfATrimmedRecordWithItsSnAfterEveryNodeWasKilled() throws Exception {
    byte[] late = "late".getBytes(StandardCharsets.UTF_8);
    long sn = appendToEveryReplica(1, late);
    assertThat(appendToEveryReplica(2, "kept".getBytes(StandardCharsets.UTF_8))).isGreaterThan(sn);
    try (FlexLog log = connect()) {
      assertThat(log.trim(TestCluster.COLOR, sn).trimPoint()).isEqualTo(sn);
    }
    for (int replica : TestCluster.REPLICAS) {
      assertThat(Files.size(cluster.dataDir(replica).resolve("trimmed-tokens")))
          .as("replica %d's trimmed-token file: a header and one token", replica)
          .isEqualTo(16 + 32);
    }

    cluster.killSequencer();
    for (int replica : TestCluster.REPLICAS) {
      cluster.killReplica(replica);
    }
    cluster.restartSequencer();
    for (int replica : TestCluster.REPLICAS) {
      cluster.restartReplica(replica);
    }

    assertThat(appendToEveryReplica(1, late))
        .as("the late copy of the record trimmed at %s", Sn.describe(sn))
        .isEqualTo(sn);
    long next = appendToEveryReplica(3, "after".getBytes(StandardCharsets.UTF_8));
    assertThat(Sn.epoch(next)).as("a new record is ordered in the new epoch").isGreaterThan(1);
    try (FlexLog log = connect()) {
      assertThat(log.tail(TestCluster.COLOR).tail()).as("nothing else was ordered").isEqualTo(next);
    }
  }

  /**
   * Sends token (SESSION, sequence) to every replica of the shard and returns the SN they all
   * acknowledged.
   */
  private long appendToEveryReplica(long sequence, byte[] payload) throws Exception {
    List<ReplicaReader> readers = new ArrayList<>();
    try {
      List<Long> requests = new ArrayList<>();
      for (int replica : TestCluster.REPLICAS) {
        ReplicaReader reader =
            new ReplicaReader(replica, cluster.replicaPort(replica), TestCluster.COLOR_ID, WAIT);
        readers.add(reader);
        requests.add(reader.sendAppend(SESSION, sequence, SHARD, payload));
      }
      List<Long> sns = new ArrayList<>();
      for (int i = 0; i < readers.size(); i++) {
        sns.add(readers.get(i).awaitAck(requests.get(i)));
      }
      assertThat(sns)
          .as("SNs acknowledged by replicas %s", TestCluster.REPLICAS)
          .containsOnly(sns.get(0));
      return sns.get(0);
    } finally {
      for (ReplicaReader reader : readers) {
        reader.close();
      }
    }
  }

  private FlexLog connect() {
    return FlexLog.connect(
        FlexLogConfig.builder()
            .bootstrapServers(cluster.bootstrap())
            .requestTimeout(Duration.ofSeconds(2))
            .deliveryTimeout(WAIT)
            .readTimeout(WAIT)
            .build());
  }
}
