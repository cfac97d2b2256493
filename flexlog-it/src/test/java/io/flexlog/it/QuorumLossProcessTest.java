package io.flexlog.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.admin.v1.AddColorRequest;
import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogAdmin;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.LogRecord;
import io.flexlog.client.NewColor;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.FlexLogTimeoutException;
import io.flexlog.core.error.MetadataUnavailableException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Sn;
import io.flexlog.core.testing.FreePorts;
import io.flexlog.it.history.History;
import io.flexlog.it.history.HistoryChecker;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.server.control.AdminClient;
import io.flexlog.server.dev.DevProcesses;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 10's "two nodes of the quorum lost" on real processes ({@code dev --processes}): with the
 * leader of {@code global}'s role left alone, the admin services (directly and relayed by a replica
 * node) answer with the typed METADATA_UNAVAILABLE within a bounded time instead of hanging, every
 * acknowledged record stays readable, an append cannot be ordered (the leader may not issue without
 * renewing its lease) and fails with a timeout; once one lost node returns, appends and AddColor
 * work again, and the history checker finds every acknowledged append once at its SN
 * (docs/testing.md, "Partitions on real processes").
 */
class QuorumLossProcessTest {
  /** The admin calls answer within the quorum's timeout (5 s) plus the relay's; never a hang. */
  private static final Duration ANSWER_BOUND = Duration.ofSeconds(20);

  private static final Duration RECOVERY = Duration.ofSeconds(60);

  @TempDir Path dir;
  private DevProcesses cluster;
  private final History history = new History();
  private final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
  private final List<HistorySubscriber> subscribers = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (HistorySubscriber s : subscribers) {
      s.stop();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Timeout(600)
  void shouldSayMetadataIsUnavailableLoseNothingAndRecoverWhenANodeReturns() throws Exception {
    int base = FreePorts.consecutive(DevProcesses.NODES + 20 + 2 * DevProcesses.SEQUENCERS);
    cluster =
        DevProcesses.start(
            new DevProcesses.Options(
                dir, base, base + 20, "mapped", DurabilityMode.PROCESS, 32L << 20, 0));
    subscribers.add(subscribe("subscriber"));
    Map<Long, byte[]> acked = new LinkedHashMap<>();
    try (FlexLog log = FlexLog.connect(config(Duration.ofSeconds(30)))) {
      acked.putAll(append(log, "before", 20));
    }
    int leader = leaderOfGlobal();
    int[] lost = IntStream.range(0, DevProcesses.SEQUENCERS).filter(i -> i != leader).toArray();
    for (int id : lost) {
      cluster.kill(id);
    }

    // Typed answers, not a hang: directly, and relayed by a replica node.
    long answeredMs;
    try (AdminClient admin = AdminClient.connect(cluster.adminAddress(leader), ANSWER_BOUND)) {
      long start = System.nanoTime();
      assertThatThrownBy(() -> admin.addColor(addColor("refused")))
          .isInstanceOf(MetadataUnavailableException.class)
          .hasMessageContaining("metadata unavailable");
      answeredMs = (System.nanoTime() - start) / 1_000_000;
      assertThatThrownBy(admin::topology).isInstanceOf(MetadataUnavailableException.class);
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .as("two admin calls answered")
          .isLessThan(ANSWER_BOUND.multipliedBy(2));
    }
    try (FlexLogAdmin admin =
        FlexLogAdmin.create(
            FlexLogConfig.builder()
                .bootstrapServers(cluster.nodeAddress(3))
                .deliveryTimeout(ANSWER_BOUND)
                .build())) {
      assertThatThrownBy(() -> admin.createColor(NewColor.of("relayed", Color.GLOBAL)))
          .isInstanceOf(MetadataUnavailableException.class);
    }

    // Nothing acknowledged is lost; nothing new is ordered without a lease.
    try (FlexLog log = FlexLog.connect(config(Duration.ofSeconds(3)))) {
      for (Map.Entry<Long, byte[]> e : acked.entrySet()) {
        assertThat(log.read(Color.GLOBAL, e.getKey()).map(LogRecord::payload))
            .as("SN %s", Sn.describe(e.getKey()))
            .hasValueSatisfying(p -> assertThat(p).isEqualTo(e.getValue()));
      }
      byte[] payload = bytes("while-lost");
      History.Append op = history.appendInvoked("client", Color.GLOBAL, payload);
      assertThatThrownBy(() -> log.append(Color.GLOBAL, payload))
          .isInstanceOf(FlexLogTimeoutException.class)
          .satisfies(op::failed);
    }

    cluster.restart(lost[0]);
    long restartedAt = System.nanoTime();
    long resumedMs;
    try (FlexLog log = FlexLog.connect(config(RECOVERY))) {
      acked.putAll(append(log, "after", 1));
      resumedMs = (System.nanoTime() - restartedAt) / 1_000_000;
      acked.putAll(append(log, "after-more", 19));
    }
    System.out.printf(
        "nodes %s lost: AddColor refused with METADATA_UNAVAILABLE after %d ms; node %d ready"
            + " again, the first append took %d ms%n",
        java.util.Arrays.toString(lost), answeredMs, lost[0], resumedMs);
    addColorWithin(cluster.adminAddress(lost[0]), "resumed", RECOVERY);
    cluster.restart(lost[1]);

    subscribers.add(subscribe("scan"));
    long last = acked.keySet().stream().mapToLong(Long::longValue).max().orElseThrow();
    for (HistorySubscriber s : subscribers) {
      s.awaitAtLeast(last, RECOVERY);
    }
    assertThat(failures).isEmpty();
    HistoryChecker.assertValid(history);
  }

  private Map<Long, byte[]> append(FlexLog log, String prefix, int count) {
    Map<Long, byte[]> written = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      byte[] payload = bytes(prefix + "-" + i);
      History.Append op = history.appendInvoked("client", Color.GLOBAL, payload);
      long sn = log.append(Color.GLOBAL, payload);
      op.acked(sn);
      written.put(sn, payload);
    }
    return written;
  }

  private int leaderOfGlobal() throws Exception {
    long deadline = System.nanoTime() + RECOVERY.toNanos();
    while (true) {
      for (int id = 0; id < DevProcesses.SEQUENCERS; id++) {
        try (AdminClient admin =
            AdminClient.connect(cluster.adminAddress(id), Duration.ofSeconds(5))) {
          return admin.topology().color(Color.GLOBAL).orElseThrow().sequencerId();
        } catch (FlexLogException e) {
          // The next quorum node.
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no admin service answered within " + RECOVERY);
      }
      Thread.sleep(100);
    }
  }

  private static void addColorWithin(String admin, String name, Duration limit) throws Exception {
    long deadline = System.nanoTime() + limit.toNanos();
    try (AdminClient client = AdminClient.connect(admin, ANSWER_BOUND)) {
      while (true) {
        try {
          client.addColor(addColor(name));
          return;
        } catch (MetadataUnavailableException e) {
          if (System.nanoTime() > deadline) {
            throw e;
          }
          Thread.sleep(100);
        }
      }
    }
  }

  private static AddColorRequest addColor(String name) {
    return AddColorRequest.newBuilder()
        .setName(name)
        .setParent(Color.GLOBAL)
        .setShards(1)
        .setReplicationFactor(3)
        .build();
  }

  private FlexLogConfig config(Duration deliveryTimeout) {
    return FlexLogConfig.builder()
        .bootstrapServers(
            cluster.bootstrap() + "," + cluster.nodeAddress(1) + "," + cluster.nodeAddress(2))
        .requestTimeout(Duration.ofSeconds(1))
        .deliveryTimeout(deliveryTimeout)
        .readTimeout(Duration.ofSeconds(5))
        .build();
  }

  private HistorySubscriber subscribe(String name) {
    return HistorySubscriber.start(
        name, Color.GLOBAL, history, config(Duration.ofSeconds(30)), failures);
  }

  private static byte[] bytes(String value) {
    return value.getBytes(StandardCharsets.UTF_8);
  }
}
