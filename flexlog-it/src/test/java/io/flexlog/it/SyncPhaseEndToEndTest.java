package io.flexlog.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.LogRecord;
import io.flexlog.client.RecordStream;
import io.flexlog.core.error.FlexLogTimeoutException;
import io.flexlog.core.model.Sn;
import io.flexlog.it.ReplicaReader.Answer;
import io.flexlog.it.ReplicaReader.Status;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sync phase on real processes (docs/architecture.md#sync-phase), one sequencer and one shard
 * of three replicas, with issue 10's reproduction: after a sequencer restart every replica has a
 * blind range; a record acknowledged while replica 3 was down must reach every subscription, also
 * those served by replica 3 once it is back, and an unassigned SN of a closed epoch is a hole on
 * every replica, also after a restart of the whole cluster.
 */
class SyncPhaseEndToEndTest {
  private static final String COLOR = TestCluster.COLOR;
  private static final Duration SYNC_TIMEOUT = Duration.ofSeconds(20);

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

  /**
   * Issue 10: append {@code a}; kill -9 the sequencer and restart it; append {@code b}; kill -9
   * replica 3; append {@code c} (times out: replica 3 cannot acknowledge it); restart replica 3;
   * append {@code d}. Before the sync phase, subscriptions through replica 3 delivered {@code a b
   * d} without {@code c} (two of eight in the run), because {@code c} was committed on
   * replicas 1 and 2 only. Now {@code c} is ordered only once replica 3 can take part (it may then
   * come after {@code d}), every subscription delivers the same four records, replica 3 itself
   * holds {@code c} (fetched from its peers), and reads by SN agree.
   */
  @Test
  @Timeout(180)
  void shouldDeliverARecordAReplicaMissedThroughEverySubscription() throws Exception {
    long snC;
    try (FlexLog log = connect(Duration.ofSeconds(3))) {
      log.append(COLOR, bytes("a"));
      cluster.killSequencer();
      cluster.restartSequencer();
      log.append(COLOR, bytes("b"));
      cluster.killReplica(3);
      assertThatThrownBy(() -> log.append(COLOR, bytes("c")))
          .isInstanceOf(FlexLogTimeoutException.class);
    }
    cluster.restartReplica(3);
    try (FlexLog log = connect(Duration.ofSeconds(30))) {
      log.append(COLOR, bytes("d"));
      // Every subscription picks its first replica at random: eight of them cover all three.
      List<String> first = firstFour(log);
      assertThat(first.subList(0, 2)).containsExactly("a", "b");
      assertThat(first).containsExactlyInAnyOrder("a", "b", "c", "d");
      for (int i = 1; i < 8; i++) {
        assertThat(firstFour(log)).as("subscription %d from SN 0", i).isEqualTo(first);
      }
      snC = snOf(log, "c");
      assertThat(log.read(COLOR, snC)).map(r -> text(r)).hasValue("c");
    }
    for (int replica : TestCluster.REPLICAS) {
      try (ReplicaReader reader =
          new ReplicaReader(
              replica, cluster.replicaPort(replica), TestCluster.COLOR_ID, SYNC_TIMEOUT)) {
        Answer answer = reader.read(snC);
        assertThat(answer.status()).as("replica %d at SN of c", replica).isEqualTo(Status.FOUND);
        assertThat(new String(answer.payload(), StandardCharsets.UTF_8)).isEqualTo("c");
      }
    }
  }

  /**
   * Before the sync phase a read of an unassigned SN just above the last SN of an earlier epoch
   * answered RETRY forever after a sequencer restart, and after a restart of every replica too. Now
   * the epoch is closed by the sync phase and every replica answers it as a hole.
   */
  @Test
  @Timeout(180)
  void shouldAnswerAnUnassignedSnOfAClosedEpochAsAHoleAlsoAfterAFullRestart() throws Exception {
    long last;
    try (FlexLog log = connect(Duration.ofSeconds(10))) {
      for (int i = 0; i < 5; i++) {
        log.append(COLOR, bytes("r" + i));
      }
      last = log.append(COLOR, bytes("last of epoch"));
      cluster.killSequencer();
      cluster.restartSequencer();
      log.append(COLOR, bytes("first of the next epoch"));
    }
    long unassigned = last + 1;
    assertEveryReplicaAnswersAbsent(unassigned);

    for (int replica : TestCluster.REPLICAS) {
      cluster.killReplica(replica);
    }
    cluster.killSequencer();
    cluster.restartSequencer();
    for (int replica : TestCluster.REPLICAS) {
      cluster.restartReplica(replica);
    }
    try (FlexLog log = connect(Duration.ofSeconds(30))) {
      long next = log.append(COLOR, bytes("after the full restart"));
      assertThat(Sn.epoch(next)).isGreaterThan(Sn.epoch(last) + 1);
      assertThat(log.read(COLOR, last)).map(r -> text(r)).hasValue("last of epoch");
      assertThat(log.read(COLOR, unassigned)).isEmpty();
    }
    assertEveryReplicaAnswersAbsent(unassigned);
  }

  /**
   * Durable sync points (docs/architecture.md#sync-phase): a replica restarted after {@code kill
   * -9} is blind only above the point up to which it had synchronised, so its first sync phase
   * fetches only the record it missed while it was down (from each of its two peers). Without its
   * sync-point file (deleted while it is down: the behaviour before) the same restart fetches every
   * record of the color again, from each peer. {@code -Dflexlog.it.syncRecords=100000} makes it the
   * measurement of docs/architecture.md.
   */
  @Test
  @Timeout(300)
  void shouldFetchOnlyWhatARestartedReplicaMissed() throws Exception {
    int records = Integer.getInteger("flexlog.it.syncRecords", 300);
    try (FlexLog log = connect(Duration.ofSeconds(10))) {
      List<CompletableFuture<Long>> window = new ArrayList<>();
      for (int i = 0; i < records; i++) {
        window.add(log.appendAsync(COLOR, new byte[100]));
        if (window.size() == 256) {
          window.forEach(CompletableFuture::join);
          window.clear();
        }
      }
      window.forEach(CompletableFuture::join);
    }
    Thread.sleep(SYNC_POINT_SAVED_MS);
    cluster.killReplica(3);
    Files.delete(dir.resolve("data-3").resolve("sync-points"));
    cluster.restartReplica(3);
    long[] without = fetchedByFirstSyncPhase(3, 2);
    // Each of the two peers sends what it holds in the blind range.
    assertThat(without[0])
        .as("records fetched without a sync point")
        .isGreaterThanOrEqualTo(2L * records);

    Thread.sleep(SYNC_POINT_SAVED_MS);
    cluster.killReplica(3);
    try (FlexLog log = connect(Duration.ofSeconds(3))) {
      assertThatThrownBy(() -> log.append(COLOR, bytes("missed")))
          .isInstanceOf(FlexLogTimeoutException.class);
    }
    cluster.restartReplica(3);
    long[] with = fetchedByFirstSyncPhase(3, 3);
    System.out.printf(
        "first sync phase of replica 3 after kill -9 and restart, %d records of 100 bytes in the"
            + " color: without a sync point %d records (%d bytes), with one %d records (%d"
            + " bytes)%n",
        records, without[0], without[1], with[0], with[1]);
    assertThat(with[0]).as("records fetched from the sync point on, one per peer").isEqualTo(2);
    assertThat(with[1]).isEqualTo(2 * "missed".length());
    try (FlexLog log = connect(Duration.ofSeconds(30))) {
      assertThat(log.read(COLOR, snOf(log, "missed"))).map(r -> text(r)).hasValue("missed");
    }
  }

  /** Time for a replica's sync-point timer (once a second) to save what it has. */
  private static final long SYNC_POINT_SAVED_MS = 2500;

  private static final Pattern SYNCHRONISED =
      Pattern.compile(
          "replica (\\d+): shard \\d+ color id "
              + TestCluster.COLOR_ID
              + " synchronised with its peers.* fetched (\\d+) records, (\\d+) bytes");

  /**
   * Records and bytes the first sync phase of run {@code run} of a replica fetched for the color,
   * from the line it logs when the phase closed its blind range.
   */
  private long[] fetchedByFirstSyncPhase(int replica, int run) throws Exception {
    Path stderr = dir.resolve("replica-" + replica + "-run" + run + ".stderr.log");
    long deadline = System.nanoTime() + SYNC_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      for (String line : Files.readAllLines(stderr, StandardCharsets.UTF_8)) {
        Matcher m = SYNCHRONISED.matcher(line);
        if (m.find() && Integer.parseInt(m.group(1)) == replica) {
          return new long[] {Long.parseLong(m.group(2)), Long.parseLong(m.group(3))};
        }
      }
      Thread.sleep(100);
    }
    throw new AssertionError("no sync phase closed in " + stderr + " within " + SYNC_TIMEOUT);
  }

  private void assertEveryReplicaAnswersAbsent(long sn) throws Exception {
    for (int replica : TestCluster.REPLICAS) {
      try (ReplicaReader reader =
          new ReplicaReader(
              replica, cluster.replicaPort(replica), TestCluster.COLOR_ID, SYNC_TIMEOUT)) {
        assertThat(reader.read(sn).status())
            .as("replica %d at unassigned SN %s", replica, Sn.describe(sn))
            .isEqualTo(Status.ABSENT);
      }
    }
  }

  private FlexLog connect(Duration deliveryTimeout) {
    return FlexLog.connect(
        FlexLogConfig.builder()
            .bootstrapServers(cluster.bootstrap())
            .requestTimeout(Duration.ofSeconds(1))
            .deliveryTimeout(deliveryTimeout)
            .readTimeout(SYNC_TIMEOUT)
            .build());
  }

  private static List<String> firstFour(FlexLog log) {
    List<String> texts = new ArrayList<>();
    try (RecordStream stream = log.subscribe(COLOR, 0)) {
      while (texts.size() < 4) {
        LogRecord record = stream.poll(SYNC_TIMEOUT);
        assertThat(record).as("record %d of the subscription", texts.size() + 1).isNotNull();
        texts.add(text(record));
      }
    }
    return texts;
  }

  private static long snOf(FlexLog log, String payload) {
    try (RecordStream stream = log.subscribe(COLOR, 0)) {
      while (true) {
        LogRecord record = stream.poll(SYNC_TIMEOUT);
        assertThat(record).as("a record with payload %s", payload).isNotNull();
        if (text(record).equals(payload)) {
          return record.sn();
        }
      }
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(LogRecord record) {
    return new String(record.payload(), StandardCharsets.UTF_8);
  }
}
