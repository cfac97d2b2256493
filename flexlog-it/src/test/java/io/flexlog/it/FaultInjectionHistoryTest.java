package io.flexlog.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.LogRecord;
import io.flexlog.client.RecordStream;
import io.flexlog.it.history.History;
import io.flexlog.it.history.HistoryChecker;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * History-checked faults on real processes: a root sequencer (node 0, {@code global}), a leaf
 * sequencer (node 1, {@code left} and {@code right}) and three replicas (nodes 2-4) holding one
 * shard of each leaf color. Every node but the root is reached through a {@link FaultyProxy}, so
 * cutting the proxies cuts client-replica, replica-replica and replica-sequencer connections at
 * once. Clients append to every color, append atomically to {@code left} and {@code right}, and
 * read back what they appended, while three subscribers per color follow from SN 0.
 *
 * <p>Faults: {@code kill -9} of the leaf or the root sequencer and restart, and cuts of every
 * proxied connection, alone or interleaved (see each test). After each one, an append begun after
 * it must succeed in every color, and an atomic group too, and the clients run on for a number of
 * acknowledged operations before the next fault. At the end a fresh subscription scans every color
 * from SN 0 (the final scan), and the {@link HistoryChecker} checks everything: one SN per record
 * (a retried append stored twice shows as the same payload at two SNs), every subscriber and the
 * scan deliver the same sequence, every record a read returned is delivered by every subscription
 * that covers its SN, atomic groups all or nothing.
 *
 * <p>Issue 16's scenario (the leaf sequencer and a replica of its shards killed together, ten
 * times, back in either order) is {@link
 * #shouldKeepEveryGuaranteeWhenALeafSequencerAndAReplicaDieTogether}. Every check is enforced, the
 * live subscriptions' included (before the sync phase, they skipped acknowledged records).
 */
class FaultInjectionHistoryTest {
  private static final List<String> COLORS = List.of("global", "left", "right");
  private static final int CLIENTS = 6;
  private static final int SUBSCRIBERS_PER_COLOR = 3;
  private static final Duration RESUME_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration DRAIN = Duration.ofSeconds(30);
  private static final int LEAF_SEQUENCER = 1;
  private static final int ROOT_SEQUENCER = 0;
  private static final int ROUNDS = 2;
  // Combined sequencer+replica kills; raise with -Dflexlog.it.combinedKills=N for a longer hunt.
  private static final int COMBINED_KILLS = Integer.getInteger("flexlog.it.combinedKills", 10);
  // Acknowledged operations between one fault and the next, besides those that show recovery.
  private static final int OPS_BETWEEN_FAULTS = 150;

  @TempDir Path dir;
  @RegisterExtension final NodeLogsOnFailure nodeLogs = new NodeLogsOnFailure();

  private TestCluster cluster;
  private final List<FaultyProxy> proxies = new ArrayList<>();
  private final History history = new History();
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
  private final Map<String, AtomicLong> maxAcked = new ConcurrentHashMap<>();
  // Per color: the latest System.nanoTime() at which an append that was later acked began.
  private final Map<String, AtomicLong> lastAckedStart = new ConcurrentHashMap<>();
  private final AtomicLong lastAtomicAckedStart = new AtomicLong();
  private final AtomicInteger failedOps = new AtomicInteger();
  private final AtomicInteger ackedOps = new AtomicInteger();
  private final AtomicInteger resubscribes = new AtomicInteger();
  private final List<Thread> threads = new ArrayList<>();
  private final List<String> faults = new ArrayList<>();

  static TestCluster.Layout layout() {
    return new TestCluster.Layout(
        List.of(ROOT_SEQUENCER, LEAF_SEQUENCER),
        List.of(2, 3, 4),
        List.of(
            "{id: 0, name: global, sequencer: 0}",
            "{id: 1, name: left, parent: global, sequencer: 1}",
            "{id: 2, name: right, parent: global, sequencer: 1}"),
        List.of(
            "{id: 0, color: left, replicas: [2, 3, 4]}",
            "{id: 1, color: right, replicas: [2, 3, 4]}"),
        false);
  }

  @AfterEach
  void stop() throws Exception {
    stopping.set(true);
    for (Thread t : threads) {
      t.interrupt();
      t.join(10_000);
    }
    if (cluster != null) {
      cluster.close();
    }
    for (FaultyProxy proxy : proxies) {
      proxy.close();
    }
  }

  /** Sequencer crashes alone: the leaf, then the root, {@code kill -9} and restart, twice over. */
  @Test
  @Timeout(240)
  void shouldKeepEveryGuaranteeAcrossSequencerKills() throws Exception {
    List<Subscriber> subscribers = startClusterAndWorkload();
    for (int round = 0; round < ROUNDS; round++) {
      killAndRestart(LEAF_SEQUENCER);
      killAndRestart(ROOT_SEQUENCER);
    }
    stopAndCheck(subscribers);
  }

  /** Every proxied connection cut at once, four times, no process killed. */
  @Test
  @Timeout(240)
  void shouldKeepEveryGuaranteeAcrossCutConnections() throws Exception {
    List<Subscriber> subscribers = startClusterAndWorkload();
    for (int round = 0; round < 2 * ROUNDS; round++) {
      cutConnections();
    }
    stopAndCheck(subscribers);
  }

  /**
   * Both kinds of fault interleaved: leaf sequencer kill, cut, root sequencer kill, cut, twice
   * over. Before the sync phase this reproduced a skip without any replica killed (1 of 7 runs): a
   * live subscription of {@code global} skipped two acknowledged records after the root sequencer's
   * restart, the client logging "sent SN ... out of order; switching replica".
   */
  @Test
  @Timeout(240)
  void shouldKeepEveryGuaranteeAcrossSequencerKillsAndCutConnections() throws Exception {
    List<Subscriber> subscribers = startClusterAndWorkload();
    for (int round = 0; round < ROUNDS; round++) {
      killAndRestart(LEAF_SEQUENCER);
      cutConnections();
      killAndRestart(ROOT_SEQUENCER);
      cutConnections();
    }
    stopAndCheck(subscribers);
  }

  /**
   * Issue 16's scenario: the leaf sequencer and a replica of its shards die together and restart
   * after a second, the sequencer first in even rounds and the replica first in odd ones (it may
   * then reach the sequencer before its peers reconnect); a different replica each time. Before the
   * sync phase this failed in 3 of 7 runs: live subscriptions skipped acknowledged records ("shard
   * N at replica node R (OPEN) sent SN ... out of order; switching replica"), among them the first
   * SNs of a new epoch, while the final scan delivered them.
   */
  @Test
  @Timeout(480)
  void shouldKeepEveryGuaranteeWhenALeafSequencerAndAReplicaDieTogether() throws Exception {
    List<Subscriber> subscribers = startClusterAndWorkload();
    killTogether(COMBINED_KILLS);
    stopAndCheck(subscribers);
  }

  private void killTogether(int kills) throws Exception {
    for (int round = 0; round < kills; round++) {
      boolean sequencerFirst = round % 2 == 0;
      int replica = 2 + round % 3;
      cluster.killNode(LEAF_SEQUENCER);
      cluster.killReplica(replica);
      // The scenario, not a synchronisation: clients keep appending while both are down.
      Thread.sleep(1_000);
      if (sequencerFirst) {
        cluster.restartNode(LEAF_SEQUENCER);
        cluster.restartReplica(replica);
      } else {
        cluster.restartReplica(replica);
        cluster.restartNode(LEAF_SEQUENCER);
      }
      long restarted = System.nanoTime();
      faults.add(
          "kill -9 sequencer "
              + LEAF_SEQUENCER
              + " with replica "
              + replica
              + (sequencerFirst ? ", sequencer back first" : ", replica back first"));
      awaitAppendsSince(restarted, "the restart of sequencer 1 and replica " + replica);
    }
  }

  private List<Subscriber> startClusterAndWorkload() throws Exception {
    cluster = nodeLogs.watch(TestCluster.create(dir, layout()));
    for (int id : List.of(LEAF_SEQUENCER, 2, 3, 4)) {
      FaultyProxy proxy = new FaultyProxy("node-" + id, cluster.port(id));
      proxies.add(proxy);
      cluster.advertise(id, proxy.port());
    }
    cluster.start();
    COLORS.forEach(
        c -> {
          maxAcked.put(c, new AtomicLong());
          lastAckedStart.put(c, new AtomicLong());
        });
    List<Subscriber> subscribers = new ArrayList<>();
    for (String color : COLORS) {
      for (int i = 0; i < SUBSCRIBERS_PER_COLOR; i++) {
        subscribers.add(subscribe(color, color + "-" + i, 0));
      }
    }
    for (int client = 0; client < CLIENTS; client++) {
      int id = client;
      start("client-" + id, () -> work(id));
    }
    awaitAppendsSince(System.nanoTime(), "the first appends");
    return subscribers;
  }

  /** Stops the clients, scans every color from SN 0, and checks the whole history. */
  private void stopAndCheck(List<Subscriber> subscribers) throws Exception {
    stopping.set(true);
    for (Thread t : List.copyOf(threads)) {
      if (t.getName().startsWith("client-")) {
        t.join(DRAIN.toMillis());
      }
    }
    for (String color : COLORS) {
      subscribers.add(subscribe(color, "scan-" + color, 0)); // the final scan
    }
    for (Subscriber s : subscribers) {
      s.awaitAtLeast(maxAcked.get(s.color).get(), DRAIN);
    }
    assertThat(failures).isEmpty();
    System.out.printf(
        "faults: %s; operations checked: %d appends (%d failed ops), %d atomic groups, %d reads,"
            + " %d subscribers (%d resubscribed after an error); proxies accepted %d connections%n",
        faults,
        history.appendCount(),
        failedOps.get(),
        history.atomicCount(),
        history.readCount(),
        history.subscriberCount(),
        resubscribes.get(),
        proxies.stream().mapToInt(FaultyProxy::accepted).sum());
    HistoryChecker.assertValid(history);
  }

  private void killAndRestart(int sequencer) throws Exception {
    cluster.killNode(sequencer);
    // The scenario, not a synchronisation: clients keep appending while the sequencer is down.
    Thread.sleep(1_000);
    cluster.restartNode(sequencer);
    long restarted = System.nanoTime();
    faults.add("kill -9 sequencer " + sequencer);
    awaitAppendsSince(restarted, "the restart of sequencer " + sequencer);
  }

  private void cutConnections() throws Exception {
    int cut = 0;
    for (FaultyProxy proxy : proxies) {
      cut += proxy.cut();
    }
    long at = System.nanoTime();
    faults.add("cut " + cut + " sockets");
    assertThat(cut).as("connections open through the proxies").isPositive();
    awaitAppendsSince(at, "cutting every proxied connection");
  }

  /**
   * Waits until an append begun after {@code since} was acked in every color, and a group; then for
   * {@link #OPS_BETWEEN_FAULTS} more acknowledged operations.
   */
  private void awaitAppendsSince(long since, String after) throws Exception {
    int target = ackedOps.get() + OPS_BETWEEN_FAULTS;
    awaitCondition(
        "appends in every color and an atomic group, begun after " + after + ", acknowledged",
        () ->
            lastAtomicAckedStart.get() > since
                && COLORS.stream().allMatch(c -> lastAckedStart.get(c).get() > since));
    awaitCondition(
        OPS_BETWEEN_FAULTS + " operations after " + after, () -> ackedOps.get() >= target);
  }

  private void awaitCondition(String what, BooleanSupplier condition) throws Exception {
    long deadline = System.nanoTime() + RESUME_TIMEOUT.toNanos();
    while (!condition.getAsBoolean()) {
      if (!failures.isEmpty()) {
        throw new AssertionError("failed while waiting for: " + what, failures.peek());
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("not within " + RESUME_TIMEOUT + ": " + what);
      }
      Thread.sleep(20);
    }
  }

  private void work(int client) {
    Random random = new Random(client * 7919L + 17);
    List<long[]> mine = new ArrayList<>(); // color index, sn
    String name = "client-" + client;
    try (FlexLog log = FlexLog.connect(config())) {
      for (long counter = 0; !stopping.get(); counter++) {
        if (random.nextInt(5) == 0) {
          appendAtomically(log, name, random, client, counter);
          counter++;
        } else {
          int colorIndex = random.nextInt(COLORS.size());
          String color = COLORS.get(colorIndex);
          byte[] payload = payload(random, client, counter);
          History.Append op = history.appendInvoked(name, color, payload);
          long start = System.nanoTime();
          try {
            long sn = log.append(color, payload);
            op.acked(sn);
            acked(color, sn, start);
            mine.add(new long[] {colorIndex, sn});
          } catch (RuntimeException e) {
            op.failed(e);
            failedOps.incrementAndGet();
          }
        }
        if (counter % 4 == 3 && !mine.isEmpty()) {
          read(log, name, mine.get(random.nextInt(mine.size())));
        }
      }
    } catch (Throwable t) {
      failures.add(new AssertionError(name + " failed", t));
    }
  }

  private void appendAtomically(FlexLog log, String name, Random random, int client, long counter) {
    byte[] left = payload(random, client, counter);
    byte[] right = payload(random, client, counter + 1);
    History.AtomicAppend op =
        history.atomicInvoked(name, Map.of("left", List.of(left), "right", List.of(right)));
    long start = System.nanoTime();
    try {
      Map<String, long[]> sns =
          log.appendAtomically(Map.of("left", List.of(left), "right", List.of(right)));
      op.acked(sns);
      acked("left", sns.get("left")[0], start);
      acked("right", sns.get("right")[0], start);
      lastAtomicAckedStart.accumulateAndGet(start, Math::max);
    } catch (RuntimeException e) {
      op.failed(e);
      failedOps.incrementAndGet();
    }
  }

  private void acked(String color, long sn, long start) {
    ackedOps.incrementAndGet();
    maxAcked.get(color).accumulateAndGet(sn, Math::max);
    lastAckedStart.get(color).accumulateAndGet(start, Math::max);
  }

  private void read(FlexLog log, String name, long[] target) {
    String color = COLORS.get((int) target[0]);
    History.Read read = history.readInvoked(name, color, target[1]);
    try {
      Optional<LogRecord> record = log.read(color, target[1]);
      if (record.isPresent()) {
        read.found(record.get().payload());
      } else {
        read.hole();
      }
    } catch (RuntimeException e) {
      // A failed read says nothing; the checker ignores it.
    }
  }

  private Subscriber subscribe(String color, String name, long fromSn) {
    Subscriber s = new Subscriber(color, name, fromSn);
    start("subscriber-" + name, s::run);
    return s;
  }

  private void start(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    threads.add(t);
    t.start();
  }

  private FlexLogConfig config() {
    return FlexLogConfig.builder()
        .bootstrapServers(cluster.bootstrap())
        .requestTimeout(Duration.ofSeconds(1))
        .deliveryTimeout(Duration.ofSeconds(10))
        .readTimeout(Duration.ofSeconds(5))
        .build();
  }

  private static byte[] payload(Random random, int client, long counter) {
    byte[] payload = new byte[12 + random.nextInt(256)];
    random.nextBytes(payload);
    ByteBuffer.wrap(payload).putInt(client).putLong(counter);
    return payload;
  }

  /**
   * Follows one color and records every delivered record. A subscription that fails is opened again
   * after the last SN it delivered, recorded as a new subscriber of its own (the checker holds each
   * to the range it covered), and counted.
   */
  private final class Subscriber {
    final String color;
    final String name;
    final long fromSn;
    final AtomicLong lastSn = new AtomicLong();
    final AtomicBoolean done = new AtomicBoolean();
    final java.util.concurrent.CountDownLatch finished = new java.util.concurrent.CountDownLatch(1);

    Subscriber(String color, String name, long fromSn) {
      this.color = color;
      this.name = name;
      this.fromSn = fromSn;
    }

    void run() {
      try {
        follow();
      } finally {
        finished.countDown();
      }
    }

    private void follow() {
      long from = fromSn;
      for (int attempt = 0; !done.get(); attempt++) {
        History.Subscriber recorded =
            history.subscriber(attempt == 0 ? name : name + "#" + attempt, color, from);
        try (FlexLog log = FlexLog.connect(config());
            RecordStream stream = log.subscribe(color, from)) {
          while (!done.get()) {
            LogRecord record = stream.poll(Duration.ofMillis(100));
            if (record != null) {
              recorded.delivered(record.sn(), record.payload());
              lastSn.set(record.sn());
            }
          }
          recorded.complete();
        } catch (RuntimeException e) {
          resubscribes.incrementAndGet();
          System.err.println("[test] subscriber " + name + " resubscribes after: " + e);
          from = lastSn.get() + 1;
        }
      }
    }

    void awaitAtLeast(long sn, Duration timeout) throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (lastSn.get() < sn && System.nanoTime() < deadline && failures.isEmpty()) {
        Thread.sleep(20);
      }
      done.set(true);
      finished.await(); // its last subscriber is declared complete before the check
    }
  }
}
