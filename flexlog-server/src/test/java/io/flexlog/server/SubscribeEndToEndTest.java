package io.flexlog.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.LogRecord;
import io.flexlog.client.RecordStream;
import io.flexlog.client.Subscription;
import io.flexlog.client.internals.SubscriptionProbe;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Sn;
import io.flexlog.core.model.Topology;
import io.flexlog.core.testing.FreePorts;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.server.dev.DevCluster;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Multi-shard colors end to end, in one JVM over real sockets: color {@code global} has two shards
 * (shard 0 attached to it, shard 1 attached to its child {@code left}), each replicated on nodes
 * 1-3.
 */
class SubscribeEndToEndTest {
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  @TempDir Path data;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private DevCluster cluster;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  static Topology twoShards(int port) {
    List<NodeAddress> nodes = new ArrayList<>();
    nodes.add(new NodeAddress(0, NodeAddress.Kind.SEQUENCER, DevCluster.HOST, port));
    for (int i = 1; i <= 3; i++) {
      nodes.add(new NodeAddress(i, NodeAddress.Kind.REPLICA, DevCluster.HOST, port + i));
    }
    return new Topology(
        1,
        nodes,
        List.of(
            new Color(Color.GLOBAL_ID, Color.GLOBAL, Color.NO_PARENT, 0),
            new Color(1, "left", Color.GLOBAL_ID, 0)),
        List.of(
            new Shard(0, Color.GLOBAL_ID, List.of(1, 2, 3)), new Shard(1, 1, List.of(1, 2, 3))));
  }

  private void start() throws Exception {
    int port = FreePorts.consecutive(4);
    cluster =
        DevCluster.start(
            twoShards(port),
            new DevCluster.Options(
                data, port, StorageEngines.MAPPED, DurabilityMode.PROCESS, 64L << 20),
            registry,
            new PrintStream(new ByteArrayOutputStream()));
  }

  private FlexLog client(long windowBytes) {
    FlexLog log =
        FlexLog.connect(
            FlexLogConfig.builder()
                .bootstrapServers(cluster.bootstrap())
                .requestTimeout(Duration.ofMillis(500))
                .deliveryTimeout(Duration.ofSeconds(30))
                .readTimeout(Duration.ofSeconds(10))
                .subscribeWindowBytes(windowBytes)
                .build());
    closeables.add(log);
    return log;
  }

  @AfterEach
  void stop() throws Exception {
    Collections.reverse(closeables);
    for (AutoCloseable closeable : closeables) {
      closeable.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** A subscriber that collects what its stream delivers on a thread of its own. */
  private static final class Collector implements AutoCloseable {
    final List<LogRecord> records = new CopyOnWriteArrayList<>();
    final RecordStream stream;
    final Thread thread;

    Collector(RecordStream stream) {
      this.stream = stream;
      this.thread = new Thread(this::run, "collector-" + stream.color());
      thread.start();
    }

    private void run() {
      for (LogRecord record : stream) {
        records.add(record);
      }
    }

    void awaitSize(int size) throws InterruptedException {
      awaitTrue(() -> records.size() >= size, "subscriber of " + stream.color() + " got " + size);
    }

    @Override
    public void close() throws InterruptedException {
      stream.close();
      thread.join(10_000);
    }
  }

  private static void awaitTrue(Supplier<Boolean> condition, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (!condition.get()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      Thread.sleep(10);
    }
  }

  @Test
  void shouldGiveConcurrentSubscribersOneIdenticalSnOrderOfEveryAckedRecord() throws Exception {
    start();
    FlexLog appenders = client(1 << 20);
    FlexLog subscribers = client(4096);
    Collector early = new Collector(subscribers.subscribe("global", 0));
    Collector leftOnly = new Collector(client(1 << 20).subscribe("left", 0));
    closeables.add(early);
    closeables.add(leftOnly);

    Map<Long, String> ackedGlobal = new ConcurrentSkipListMap<>();
    Map<Long, String> ackedLeft = new ConcurrentSkipListMap<>();
    int threads = 4;
    int perThread = 120;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<?>> work = new ArrayList<>();
    Collector late = null;
    try {
      for (int t = 0; t < threads; t++) {
        int thread = t;
        work.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < perThread; i++) {
                    String value = "t" + thread + "-" + i;
                    if (i % 10 == 9) {
                      ackedLeft.put(appenders.append("left", bytes(value)), value);
                    } else if (i % 2 == 0) {
                      byte[] key = bytes("key-" + (i % 7));
                      ackedGlobal.put(appenders.append("global", key, bytes(value)), value);
                    } else {
                      ackedGlobal.put(appenders.append("global", bytes(value)), value);
                    }
                  }
                  return null;
                }));
      }
      awaitTrue(() -> ackedGlobal.size() > threads * perThread / 3, "a third is appended");
      late = new Collector(client(4096).subscribe("global", 0)); // catches up, then tails live
      closeables.add(late);
      for (Future<?> f : work) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }

    // A last record per color: anything extra would be delivered before it.
    ackedGlobal.put(appenders.append("global", bytes("end")), "end");
    ackedLeft.put(appenders.append("left", bytes("end")), "end");
    early.awaitSize(ackedGlobal.size());
    late.awaitSize(ackedGlobal.size());
    leftOnly.awaitSize(ackedLeft.size());
    for (Collector collector : List.of(early, late)) {
      List<Long> sns = collector.records.stream().map(LogRecord::sn).toList();
      assertThat(sns).isSorted().doesNotHaveDuplicates();
      assertThat(sns).containsExactlyElementsOf(ackedGlobal.keySet());
      for (LogRecord record : collector.records) {
        assertThat(new String(record.payload(), StandardCharsets.UTF_8))
            .isEqualTo(ackedGlobal.get(record.sn()));
      }
    }
    assertThat(late.records.stream().map(LogRecord::sn).toList())
        .isEqualTo(early.records.stream().map(LogRecord::sn).toList());
    assertThat(leftOnly.records.stream().map(LogRecord::sn).toList())
        .containsExactlyElementsOf(ackedLeft.keySet());
  }

  @Test
  void shouldReadExactBytesFromBothShardsAndHolesAsEmpty() throws Exception {
    start();
    FlexLog log = client(1 << 20);
    Random random = new Random(7);
    TreeMap<Long, byte[]> written = new TreeMap<>();
    int[] sizes = {0, 1, 17, 1000, 1023, 1024, 5000, 100_000, 1 << 20};
    for (int round = 0; round < 2; round++) {
      for (int size : sizes) {
        byte[] payload = new byte[size];
        random.nextBytes(payload);
        written.put(log.append("global", payload), payload);
      }
    }
    long leftSn = log.append("left", bytes("only in left"));

    for (Map.Entry<Long, byte[]> entry : written.entrySet()) {
      assertThat(log.read("global", entry.getKey()).orElseThrow().payload())
          .isEqualTo(entry.getValue());
    }
    assertThat(log.read("left", leftSn).orElseThrow().payload()).isEqualTo(bytes("only in left"));
    assertThat(log.read("global", Sn.of(0, 1))).isEmpty();
    try (RecordStream stream = log.subscribe("global", written.firstKey())) {
      for (Map.Entry<Long, byte[]> entry : written.entrySet()) {
        LogRecord record = stream.poll(PATIENCE);
        assertThat(record).isNotNull();
        assertThat(record.sn()).isEqualTo(entry.getKey());
        assertThat(record.payload()).isEqualTo(entry.getValue());
      }
    }
  }

  @Test
  void shouldResumeOnAnotherReplicaWhenTheOneStreamingStops() throws Exception {
    start();
    FlexLog log = client(FlexLogConfig.MIN_SUBSCRIBE_WINDOW_BYTES);
    List<Long> acked = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      acked.add(log.append("global", bytes("record-" + i)));
    }
    Collections.sort(acked);

    List<Long> seen = new ArrayList<>();
    try (RecordStream stream = log.subscribe("global", 0)) {
      while (seen.size() < 40) {
        LogRecord record = stream.poll(PATIENCE);
        assertThat(record).isNotNull();
        seen.add(record.sn());
      }
      List<Integer> streaming = replicasWithSubscriptions();
      assertThat(streaming).isNotEmpty().hasSizeLessThan(3);
      for (int node : streaming) {
        cluster.stopReplica(node);
      }

      while (seen.size() < acked.size()) {
        LogRecord record = stream.poll(PATIENCE);
        assertThat(record).as("record after %s", seen.size()).isNotNull();
        seen.add(record.sn());
      }
      // Nothing after the last acked record: every shard's current replica is heard from twice
      // after it was taken. A replica sends a SUBSCRIBE_PROGRESS (on an idle subscription, a
      // heartbeat every interval) only after the records it had credit for, and the second one
      // comes an interval after the first, when the credit granted for the records taken has long
      // arrived; frames of a stream arrive in order.
      long[] before = SubscriptionProbe.progressFramesHeard(stream, PATIENCE);
      awaitTrue(
          () -> heardSince(stream, before, 2),
          "every shard's replica sent two SUBSCRIBE_PROGRESS after the last record");
      assertThat(stream.poll(Duration.ZERO)).isNull();
    }
    assertThat(seen).isEqualTo(acked);
  }

  /** Whether every shard of the stream heard {@code frames} more progress frames than before. */
  private static boolean heardSince(RecordStream stream, long[] before, int frames) {
    try {
      long[] now = SubscriptionProbe.progressFramesHeard(stream, PATIENCE);
      for (int i = 0; i < before.length; i++) {
        if (now[i] < before[i] + frames) {
          return false;
        }
      }
      return true;
    } catch (Exception e) {
      throw new AssertionError("could not read the subscription's progress frames", e);
    }
  }

  @Test
  void shouldContinueFromLastSnInANewSubscription() throws Exception {
    start();
    FlexLog log = client(1 << 20);
    List<Long> acked = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      acked.add(log.append("global", bytes("v" + i)));
    }
    List<Long> seen = new CopyOnWriteArrayList<>();
    long resumeFrom;
    try (Subscription first = log.subscribe("global", 0, record -> seen.add(record.sn()))) {
      awaitTrue(() -> seen.size() >= 10, "10 records");
      first.close();
      resumeFrom = first.lastSn() + 1;
    }
    assertThat(seen).containsExactlyElementsOf(acked.subList(0, seen.size()));
    try (RecordStream second = log.subscribe("global", resumeFrom)) {
      while (seen.size() < acked.size()) {
        seen.add(second.poll(PATIENCE).sn());
      }
    }
    assertThat(seen).containsExactlyElementsOf(acked);
  }

  /** Replica nodes that currently serve at least one subscription. */
  private List<Integer> replicasWithSubscriptions() {
    List<Integer> nodes = new ArrayList<>();
    for (Gauge gauge : registry.find("flexlog.replica.subscriptions").gauges()) {
      if (gauge.value() > 0) {
        nodes.add(Integer.parseInt(gauge.getId().getTag("node")));
      }
    }
    return nodes;
  }
}
