package io.flexlog.server.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.admin.v1.AddColorRequest;
import io.flexlog.admin.v1.ColorInfo;
import io.flexlog.client.ClusterDescription;
import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogAdmin;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.LogRecord;
import io.flexlog.client.NewColor;
import io.flexlog.core.error.MetadataUnavailableException;
import io.flexlog.core.testing.FreePorts;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.server.control.AdminClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code flexlog dev --processes}: six real processes, one of them killed with SIGKILL: a quorum
 * peer (nothing may stop), or the sequencer leading {@code global} (a backup takes the role in a
 * larger epoch and appends resume with larger SNs; docs/architecture.md, "Sequencer failover").
 */
class DevProcessesTest {
  @TempDir Path dir;

  @Test
  void shouldKeepAppendsAndAddColorWorkingWhenAQuorumSequencerIsKilled() throws Exception {
    int base = FreePorts.consecutive(DevProcesses.NODES + 20 + 2 * DevProcesses.SEQUENCERS);
    DevProcesses.Options options =
        new DevProcesses.Options(
            dir, base, base + 20, "mapped", DurabilityMode.PROCESS, 32L << 20, 0);
    try (DevProcesses cluster = DevProcesses.start(options);
        FlexLog log =
            FlexLog.connect(
                FlexLogConfig.builder()
                    .bootstrapServers(cluster.bootstrap())
                    .deliveryTimeout(Duration.ofSeconds(20))
                    .readTimeout(Duration.ofSeconds(5))
                    .build())) {
      Map<Long, String> written = append(log, "before", 5);
      for (int id = 0; id < DevProcesses.SEQUENCERS; id++) {
        assertThat(Files.readString(cluster.log(id)))
            .as("node %d: a quorum of three sequencer nodes turns failover on by default", id)
            .contains(" failover=on");
      }

      cluster.kill(1);
      assertThat(cluster.isAlive(1)).isFalse();

      written.putAll(append(log, "after", 5));
      addColorWithin(cluster.adminAddress(2), "orders", Duration.ofSeconds(20));
      try (AdminClient admin =
          AdminClient.connect(cluster.adminAddress(0), Duration.ofSeconds(10))) {
        assertThat(admin.listColors().getColorsList())
            .extracting(ColorInfo::getName)
            .contains("orders");
      }
      assertThat(log.append("orders", bytes("first"))).isPositive();
      // A replica node (not in the quorum) relays FlexLogAdmin's requests to a live admin service.
      try (FlexLogAdmin admin = FlexLogAdmin.create(cluster.nodeAddress(3))) {
        assertThat(admin.createColor(NewColor.of("relayed", "orders")).created()).isTrue();
        assertThat(admin.describeColor("orders").parent()).contains("global");
        assertThat(admin.describeCluster().adminServices())
            .extracting(ClusterDescription.AdminService::nodeId)
            .containsExactly(0, 1, 2);
      }
      assertThat(log.append("relayed", bytes("first"))).isPositive();

      cluster.restart(1);
      written.putAll(append(log, "restarted", 5));
      written.forEach(
          (sn, value) ->
              assertThat(log.read("global", sn).map(LogRecord::payload)).contains(bytes(value)));
    }
  }

  @Test
  void shouldMoveTheGlobalRoleToABackupWhenItsLeaderIsKilled() throws Exception {
    int base = FreePorts.consecutive(DevProcesses.NODES + 20 + 2 * DevProcesses.SEQUENCERS);
    DevProcesses.Options options =
        new DevProcesses.Options(
            dir, base, base + 20, "mapped", DurabilityMode.PROCESS, 32L << 20, 0);
    try (DevProcesses cluster = DevProcesses.start(options);
        FlexLog log =
            FlexLog.connect(
                FlexLogConfig.builder()
                    .bootstrapServers(cluster.bootstrap() + "," + cluster.nodeAddress(1))
                    .deliveryTimeout(Duration.ofSeconds(30))
                    .readTimeout(Duration.ofSeconds(5))
                    .build())) {
      Map<Long, String> written = append(log, "before", 5);
      long lastBefore = written.keySet().stream().mapToLong(Long::longValue).max().orElseThrow();

      cluster.kill(0);
      long killedAt = System.nanoTime();
      long sn = log.append("global", bytes("after-0"));
      long gapMs = (System.nanoTime() - killedAt) / 1_000_000;
      written.put(sn, "after-0");
      written.putAll(append(log, "after", 5));

      assertThat(sn).as("SNs of the new leader are larger").isGreaterThan(lastBefore);
      assertThat(io.flexlog.core.model.Sn.epoch(sn))
          .isGreaterThan(io.flexlog.core.model.Sn.epoch(lastBefore));
      System.out.println("append gap across the kill of global's leader: " + gapMs + " ms");
      assertThat(gapMs).as("appends resumed after the kill").isLessThan(30_000);
      written.forEach(
          (s, value) ->
              assertThat(log.read("global", s).map(LogRecord::payload)).contains(bytes(value)));
    }
  }

  private static void addColorWithin(String admin, String name, Duration limit) throws Exception {
    long deadline = System.nanoTime() + limit.toNanos();
    try (AdminClient client = AdminClient.connect(admin, Duration.ofSeconds(15))) {
      while (true) {
        try {
          client.addColor(
              AddColorRequest.newBuilder()
                  .setName(name)
                  .setParent("global")
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

  private static Map<Long, String> append(FlexLog log, String prefix, int count) {
    Map<Long, String> written = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      String value = prefix + "-" + i;
      written.put(log.append("global", bytes(value)), value);
    }
    return written;
  }

  private static byte[] bytes(String value) {
    return value.getBytes(StandardCharsets.UTF_8);
  }
}
