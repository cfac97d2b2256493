package io.flexlog.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.admin.v1.AddColorRequest;
import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.LogRecord;
import io.flexlog.client.RecordStream;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.error.MetadataUnavailableException;
import io.flexlog.core.model.Color;
import io.flexlog.core.testing.FreePorts;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.server.control.AdminClient;
import io.flexlog.server.dev.DevProcesses;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Join marks that outlive their sequencer (docs/architecture.md#join-marks) on real processes
 * ({@code dev --processes}, with failover): replica 5 is down while AddColor grows {@code global}'s
 * subtree, so it never hears the join mark; the leader of {@code global} is killed with SIGKILL (a
 * backup takes the role over) and restarted; replica 5 returns. A client that still has the
 * topology from before AddColor subscribes to {@code global}: whichever replica serves its stream
 * of the old shard, the mark must be there so that the client opens the new shard too, and every
 * subscription delivers the same records. Before, the backup started without the old leader's
 * marks, replica 5 never got the mark, and a subscription served by it never delivered the records
 * of the new shard.
 */
class JoinMarkProcessTest {
  private static final int DOWN = DevProcesses.SEQUENCERS + DevProcesses.REPLICAS - 1;
  private static final Duration RECOVERY = Duration.ofSeconds(60);
  private static final int SUBSCRIBERS = 12;

  @TempDir Path dir;
  private DevProcesses cluster;

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Timeout(600)
  void shouldServeAMarkIssuedWhileAReplicaWasDownAfterTheLeaderWasKilled() throws Exception {
    int base = FreePorts.consecutive(DevProcesses.NODES + 20 + 2 * DevProcesses.SEQUENCERS);
    cluster =
        DevProcesses.start(
            new DevProcesses.Options(
                dir, base, base + 20, "mapped", DurabilityMode.PROCESS, 32L << 20, 0));
    List<String> expected = new ArrayList<>();
    // Clients that fetch the topology now and keep it: each learns of the new shard only from a
    // join mark (the first mark updates its topology, so each subscribes once).
    List<FlexLog> olds = new ArrayList<>();
    try {
      for (int i = 0; i < SUBSCRIBERS; i++) {
        FlexLog old = FlexLog.connect(config(Duration.ofSeconds(30)));
        olds.add(old);
        old.append(Color.GLOBAL, bytes("before-" + i));
        expected.add("before-" + i);
      }
      cluster.kill(DOWN);
      addColor("joined");
      // The leader saves the mark through the quorum within milliseconds of applying AddColor;
      // only then may it be killed without losing it (docs/architecture.md#join-marks).
      Thread.sleep(2000);
      int leader = leaderOfGlobal(-1);
      cluster.kill(leader);
      int successor = leaderOfGlobal(leader);
      cluster.restart(leader);
      cluster.restart(DOWN);
      assertThat(successor).isNotEqualTo(leader);

      try (FlexLog fresh = FlexLog.connect(config(Duration.ofSeconds(60)))) {
        assertThat(fresh.topology().color("joined")).isPresent();
        // Round robin over both shards of global's subtree: half of them land on the new shard.
        for (int i = 0; i < 6; i++) {
          fresh.append(Color.GLOBAL, bytes("after-" + i));
          expected.add("after-" + i);
        }
        List<String> reference = first(fresh, expected.size());
        assertThat(reference).containsExactlyInAnyOrderElementsOf(expected);
        // Each subscription picks its replicas at random: one in three streams the old shard
        // from replica 5, so twelve miss it with a probability below 1%.
        for (int i = 0; i < SUBSCRIBERS; i++) {
          FlexLog old = olds.get(i);
          assertThat(old.topology().color("joined")).as("client %d's topology", i).isEmpty();
          assertThat(first(old, expected.size()))
              .as("subscription of client %d, with the topology from before AddColor", i)
              .isEqualTo(reference);
        }
      }
    } finally {
      olds.forEach(FlexLog::close);
    }
  }

  private void addColor(String name) throws Exception {
    long deadline = System.nanoTime() + RECOVERY.toNanos();
    try (AdminClient client = AdminClient.connect(cluster.adminAddress(0), RECOVERY)) {
      while (true) {
        try {
          client.addColor(
              AddColorRequest.newBuilder()
                  .setName(name)
                  .setParent(Color.GLOBAL)
                  .setShards(1)
                  .setReplicationFactor(3)
                  .build());
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

  /** The node leading {@code global}, once it is another than {@code not}. */
  private int leaderOfGlobal(int not) throws Exception {
    long deadline = System.nanoTime() + RECOVERY.toNanos();
    while (true) {
      for (int id = 0; id < DevProcesses.SEQUENCERS; id++) {
        if (id == not || !cluster.isAlive(id)) {
          continue;
        }
        try (AdminClient admin =
            AdminClient.connect(cluster.adminAddress(id), Duration.ofSeconds(5))) {
          int leader = admin.topology().color(Color.GLOBAL).orElseThrow().sequencerId();
          if (leader != not) {
            return leader;
          }
        } catch (FlexLogException e) {
          // The next quorum node.
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no node other than " + not + " leads global within " + RECOVERY);
      }
      Thread.sleep(100);
    }
  }

  private static List<String> first(FlexLog log, int count) {
    List<String> texts = new ArrayList<>();
    try (RecordStream stream = log.subscribe(Color.GLOBAL, 0)) {
      while (texts.size() < count) {
        LogRecord record = stream.poll(Duration.ofSeconds(20));
        assertThat(record)
            .as("record %d of %d, after %s", texts.size() + 1, count, texts)
            .isNotNull();
        texts.add(new String(record.payload(), StandardCharsets.UTF_8));
      }
    }
    return texts;
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

  private static byte[] bytes(String value) {
    return value.getBytes(StandardCharsets.UTF_8);
  }
}
