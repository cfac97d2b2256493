package io.flexlog.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.admin.v1.AddColorRequest;
import io.flexlog.admin.v1.AddColorResponse;
import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.LogRecord;
import io.flexlog.client.RecordStream;
import io.flexlog.core.model.Color;
import io.flexlog.core.testing.FreePorts;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.server.control.AdminClient;
import io.flexlog.server.dev.DevCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A subscription opened before AddColor grows its color's subtree (docs/architecture.md#subscribe):
 * appends go on while the color is added, a client that knows the new topology spreads records of
 * the subscribed color over the new shards too, and the subscriber, which started with the old
 * shard set, must still receive every acknowledged record exactly once, in SN order. Over the flat
 * layout (one sequencer) and the tree layout (the root's join mark descends through a leaf
 * sequencer).
 */
class SubscribeTopologyChangeEndToEndTest {
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  @TempDir Path data;
  private DevCluster cluster;
  private final List<AutoCloseable> resources = new ArrayList<>();
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void stop() throws Exception {
    threads.shutdownNow();
    threads.awaitTermination(10, TimeUnit.SECONDS);
    for (int i = resources.size() - 1; i >= 0; i--) {
      resources.get(i).close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private void start(DevCluster.Layout layout) throws Exception {
    cluster =
        DevCluster.start(
            new DevCluster.Options(
                data,
                FreePorts.consecutive(DevCluster.nodeCount(layout)),
                StorageEngines.MAPPED,
                DurabilityMode.PROCESS,
                32L << 20,
                layout,
                0),
            new SimpleMeterRegistry(),
            new PrintStream(new ByteArrayOutputStream()));
  }

  private FlexLog client() {
    FlexLog log =
        FlexLog.connect(
            FlexLogConfig.builder()
                .bootstrapServers(cluster.bootstrap())
                .requestTimeout(Duration.ofMillis(500))
                .deliveryTimeout(Duration.ofSeconds(30))
                .readTimeout(Duration.ofSeconds(5))
                .build());
    resources.add(log);
    return log;
  }

  private AddColorResponse addColor(String name, String parent) {
    AdminClient admin = AdminClient.connect(cluster.adminAddress(), Duration.ofSeconds(10));
    resources.add(admin);
    return admin.addColor(
        AddColorRequest.newBuilder()
            .setName(name)
            .setParent(parent)
            .setShards(2)
            .setReplicationFactor(3)
            .build());
  }

  @Test
  void shouldDeliverRecordsOnShardsAddedUnderTheSubscribedColorInTheFlatLayout() throws Exception {
    start(DevCluster.Layout.FLAT);
    subscribeWhileTheSubtreeGrows(Color.GLOBAL, "hot", Color.GLOBAL);
  }

  @Test
  void shouldDeliverRecordsOnShardsAddedUnderALeafOfTheTree() throws Exception {
    start(DevCluster.Layout.TREE);
    subscribeWhileTheSubtreeGrows(Color.GLOBAL, "left-hot", "left");
  }

  private void subscribeWhileTheSubtreeGrows(String subscribed, String added, String parent)
      throws Exception {
    RecordStream stream = client().subscribe(subscribed, 0);
    resources.add(stream);
    List<LogRecord> received = new CopyOnWriteArrayList<>();
    AtomicBoolean collected = new AtomicBoolean();
    AtomicBoolean stopping = new AtomicBoolean();
    threads.submit(
        () -> {
          while (!collected.get() && !stream.isClosed()) {
            LogRecord record = stream.poll(Duration.ofMillis(100));
            if (record != null) {
              received.add(record);
            }
          }
          return null;
        });
    Map<Long, String> acked = new ConcurrentSkipListMap<>();
    FlexLog before = client();
    Future<?> steady =
        threads.submit(
            () -> {
              for (int i = 0; !stopping.get(); i++) {
                String value = "before-" + i;
                acked.put(before.append(subscribed, bytes(value)), value);
              }
              return null;
            });
    awaitSize(acked, 30);

    AddColorResponse response = addColor(added, parent);
    assertThat(response.getColor().getShardIdsCount()).isEqualTo(2);

    // A client that knows the new topology: round robin puts records of the subscribed color on
    // the new shards too.
    FlexLog after = client();
    after.append(added, bytes("first of " + added));
    assertThat(after.topology().shardsInSubtree(after.topology().color(subscribed).get().id()))
        .as("shards of %s after AddColor", subscribed)
        .hasSizeGreaterThan(2);
    for (int i = 0; i < 60; i++) {
      String value = "after-" + i;
      acked.put(after.append(subscribed, bytes(value)), value);
    }
    stopping.set(true);
    steady.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);

    acked.put(after.append(subscribed, bytes("end")), "end"); // anything repeated comes before it
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (received.size() < acked.size() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    collected.set(true);

    List<Long> sns = received.stream().map(LogRecord::sn).toList();
    assertThat(sns).as("SN order, no repeats").isSorted().doesNotHaveDuplicates();
    assertThat(sns).as("every acknowledged record").containsExactlyElementsOf(acked.keySet());
    for (LogRecord record : received) {
      assertThat(new String(record.payload(), StandardCharsets.UTF_8))
          .isEqualTo(acked.get(record.sn()));
    }
  }

  private static void awaitSize(Map<Long, String> map, int size) throws InterruptedException {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (map.size() < size) {
      assertThat(System.nanoTime())
          .as("%d appends acknowledged in time", size)
          .isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
