package io.flexlog.server.consumer;

import io.flexlog.admin.v1.AddColorRequest;
import io.flexlog.client.FlexLog;
import io.flexlog.client.consumer.ColorShard;
import io.flexlog.client.consumer.ConsumerConfig;
import io.flexlog.client.consumer.ConsumerRecord;
import io.flexlog.client.consumer.ConsumerRecords;
import io.flexlog.client.consumer.FlexLogConsumer;
import io.flexlog.core.testing.FreePorts;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.server.control.AdminClient;
import io.flexlog.server.dev.DevCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/** An embedded dev cluster with a color of several shards, and consumers on it, for tests. */
final class ConsumerCluster implements AutoCloseable {
  final DevCluster cluster;
  final FlexLog log;
  private final List<AutoCloseable> resources = new ArrayList<>();

  ConsumerCluster(Path data, String color, int shards) throws Exception {
    int port = FreePorts.consecutive(DevCluster.nodeCount(DevCluster.Layout.FLAT));
    cluster =
        DevCluster.start(
            new DevCluster.Options(
                data,
                port,
                StorageEngines.MAPPED,
                DurabilityMode.PROCESS,
                32L << 20,
                DevCluster.Layout.FLAT,
                0),
            new SimpleMeterRegistry(),
            new PrintStream(new ByteArrayOutputStream()));
    try (AdminClient admin = AdminClient.connect(cluster.adminAddress(), Duration.ofSeconds(20))) {
      admin.addColor(
          AddColorRequest.newBuilder()
              .setName(color)
              .setParent("global")
              .setShards(shards)
              .setReplicationFactor(3)
              .build());
    }
    log = FlexLog.connect(cluster.bootstrap());
  }

  /** Consumer settings for this cluster: fast heartbeats, earliest. */
  Map<String, Object> settings(String group) {
    Map<String, Object> s = new HashMap<>();
    s.put("bootstrap.servers", cluster.bootstrap());
    if (group != null) {
      s.put("group.id", group);
    }
    s.put("auto.offset.reset", "earliest");
    s.put("session.timeout.ms", "2000");
    s.put("heartbeat.interval.ms", "300");
    s.put("enable.auto.commit", "false");
    return s;
  }

  FlexLogConsumer<byte[], byte[]> consumer(Map<String, Object> settings) {
    FlexLogConsumer<byte[], byte[]> consumer =
        new FlexLogConsumer<>(ConsumerConfig.fromMap(settings), null, null);
    resources.add(consumer);
    return consumer;
  }

  /** Polls until {@code done} or the deadline, collecting every record. */
  static <K, V> List<ConsumerRecord<K, V>> pollUntil(
      FlexLogConsumer<K, V> consumer, Duration patience, BooleanSupplier done) {
    List<ConsumerRecord<K, V>> all = new ArrayList<>();
    long deadline = System.nanoTime() + patience.toNanos();
    while (!done.getAsBoolean() && System.nanoTime() < deadline) {
      ConsumerRecords<K, V> records = consumer.poll(Duration.ofMillis(50));
      records.forEach(all::add);
    }
    return all;
  }

  static <K, V> List<ConsumerRecord<K, V>> pollCount(
      FlexLogConsumer<K, V> consumer, int count, Duration patience) {
    List<ConsumerRecord<K, V>> all = new ArrayList<>();
    long deadline = System.nanoTime() + patience.toNanos();
    while (all.size() < count && System.nanoTime() < deadline) {
      consumer.poll(Duration.ofMillis(50)).forEach(all::add);
    }
    return all;
  }

  static ColorShard whole(String color) {
    return ColorShard.wholeColor(color);
  }

  @Override
  public void close() {
    for (int i = resources.size() - 1; i >= 0; i--) {
      try {
        resources.get(i).close();
      } catch (Exception e) {
        // closing the rest anyway
      }
    }
    log.close();
    cluster.close();
  }
}
