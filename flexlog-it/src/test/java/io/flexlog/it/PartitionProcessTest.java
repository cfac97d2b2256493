package io.flexlog.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.LogRecord;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Sn;
import io.flexlog.it.history.History;
import io.flexlog.it.history.HistoryChecker;
import io.flexlog.server.control.AdminClient;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 10's partition on real processes (docs/testing.md, "Partitions on real processes"): the
 * {@code dev --processes} layout with every node a JVM in its own network namespace ({@link
 * NamespaceCluster}), under a steady load of appends, reads and subscriptions of {@code global}.
 * The leader of {@code global}'s role keeps running while the network cuts it off, in two steps,
 * from replicas 4 and 5 and then from the other two quorum nodes; it stays reachable for replica 3
 * and for the test's clients. The test checks, through the nodes' Prometheus endpoints and admin
 * services:
 *
 * <ul>
 *   <li>while cut from replicas 4 and 5 only, the leader still holds its lease and issues SNs for
 *       replica 3's order requests: their ORDER_RESPONSEs to 4 and 5 wait in the network;
 *   <li>cut from the quorum, its lease lapses ({@code flexlog.sequencer.roles.leased} drops to 0)
 *       and it issues no SN from then on ({@code flexlog.sequencer.sns.issued} stays put, although
 *       replica 3 and clients still reach it); a backup takes the role in a larger epoch and every
 *       append begun after that is acknowledged with an SN of that epoch or later;
 *   <li>once healed, replicas 4 and 5 get the held-back ORDER_RESPONSEs and drop them ({@code
 *       flexlog.replica.fenced}); the old leader answers topology reads naming the new leader, and
 *       it is a working quorum member and backup again: with the new leader killed, the role moves
 *       once more (which needs its vote) and appends resume;
 *   <li>the history checker finds every acknowledged append delivered once, at its SN, by every
 *       subscriber and a final scan, and reads consistent with them.
 * </ul>
 *
 * <p>Needs root, {@code ip} and {@code iptables} ({@link NetworkNamespaces}); skipped otherwise.
 * The nodes' logs stay in {@code flexlog-it/target/partition-process} after a run.
 */
class PartitionProcessTest {
  private static final int CLIENTS = 3;
  private static final int SUBSCRIBERS = 2;
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final Duration HOLD = Duration.ofSeconds(3);
  private static final Duration STEADY = Duration.ofSeconds(2);
  private static final Duration DRAIN = Duration.ofSeconds(30);
  private static final int OPS_AFTER_EACH_STEP = 30;
  private static final int PULSE_IN_FLIGHT = 256;

  /** The replica that stays connected to the old leader; the others are cut off from it. */
  private static final int KEPT_REPLICA = 3;

  private static final int[] CUT_REPLICAS = {4, 5};
  private static final String ISSUED = "flexlog_sequencer_sns_issued_total";
  private static final String LEASED = "flexlog_sequencer_roles_leased";
  private static final String FENCED = "flexlog_replica_fenced_total";
  private static final String GLOBAL_TAG = "color=\"global\"";

  private final Path dir = Path.of("target", "partition-process");
  private NetworkNamespaces net;
  private NamespaceCluster cluster;
  private final History history = new History();
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
  private final AtomicLong maxAcked = new AtomicLong();
  private final AtomicInteger ackedOps = new AtomicInteger();
  private final AtomicInteger failedOps = new AtomicInteger();
  private final List<Thread> threads = new ArrayList<>();
  private final List<HistorySubscriber> subscribers = new ArrayList<>();

  /** (start nanos, acknowledged nanos, SN) of every acknowledged append. */
  private final List<long[]> acks = new ArrayList<>();

  private record Role(int leader, int epoch) {}

  @AfterEach
  void stop() throws Exception {
    stopping.set(true);
    for (Thread t : threads) {
      t.interrupt();
      t.join(10_000);
    }
    for (HistorySubscriber s : subscribers) {
      s.stop();
    }
    if (cluster != null) {
      cluster.close();
    }
    if (net != null) {
      net.close();
    }
  }

  @Test
  @Timeout(600)
  void shouldStopAndFenceALeaderCutOffFromTheQuorumAndReplicasThenTakeItBackAsABackup()
      throws Exception {
    Optional<String> unavailable = NetworkNamespaces.unavailableReason();
    assumeTrue(unavailable.isEmpty(), () -> "partition test skipped: " + unavailable.orElseThrow());
    deleteRecursively(dir);
    net = NetworkNamespaces.create(NamespaceCluster.NODES);
    cluster = NamespaceCluster.start(dir, net);
    for (int i = 0; i < SUBSCRIBERS; i++) {
      subscribers.add(subscribe("subscriber-" + i));
    }
    for (int client = 0; client < CLIENTS; client++) {
      int id = client;
      start("client-" + id, () -> work(id));
    }
    start("pulse", this::pulse);
    awaitAppendsSince(System.nanoTime(), "the start");

    Role before = awaitSteadyRole();
    int old = before.leader();
    progress("node %d leads global's role in epoch %d", old, before.epoch());
    int[] peers = IntStream.range(0, NamespaceCluster.SEQUENCERS).filter(i -> i != old).toArray();

    // 1. Cut from replicas 4 and 5: the leader still renews its lease and issues SNs for replica
    // 3's order requests; their ORDER_RESPONSEs to 4 and 5 are held by the network.
    double issuedBeforeCut = issued(old);
    net.cut(old, CUT_REPLICAS);
    progress("cut node %d off from replicas 4 and 5", old);
    awaitCondition(
        "node " + old + " issuing SNs while cut off from replicas 4 and 5",
        () -> issued(old) > issuedBeforeCut);

    // 2. Cut from the rest of the quorum too: its lease lapses, a backup takes the role.
    long lastAckedBefore = maxAcked.get();
    long cutAt = System.nanoTime();
    net.cut(old, peers);
    progress(
        "node %d issued SNs; cut it off from nodes %s too", old, java.util.Arrays.toString(peers));
    awaitCondition("node " + old + "'s lease lapsing", () -> leased(old) == 0);
    progress("node %d's lease lapsed", old);
    long lapsedMs = (System.nanoTime() - cutAt) / 1_000_000;
    // A batch let through just before the lapse may still be counting.
    Thread.sleep(200);
    double issuedAtLapse = issued(old);
    Role after =
        awaitRole(
            "a backup taking the role from node " + old,
            r -> r.leader() != old && r.epoch() > before.epoch(),
            peers);
    long takenAt = System.nanoTime();
    progress("node %d leads the role in epoch %d", after.leader(), after.epoch());
    long takeoverMs = (takenAt - cutAt) / 1_000_000;
    awaitAppendsSince(takenAt, "the takeover");
    long holdUntil = System.nanoTime() + HOLD.toNanos();
    while (System.nanoTime() < holdUntil) {
      assertThat(issued(old))
          .as("SNs issued by node %d after its lease lapsed", old)
          .isEqualTo(issuedAtLapse);
      assertThat(leased(old)).as("roles node %d may issue for", old).isZero();
      Thread.sleep(100);
    }
    assertThat(Sn.epoch(lastAckedBefore)).isLessThanOrEqualTo(before.epoch());
    synchronized (acks) {
      assertThat(acks.stream().filter(a -> a[0] > takenAt).mapToInt(a -> Sn.epoch(a[2])))
          .as("epochs of appends begun after the takeover")
          .isNotEmpty()
          .allMatch(e -> e >= after.epoch());
    }

    // 3. Heal: the held-back order responses reach replicas 4 and 5, which drop them.
    progress("appends continue, node %d issued nothing since its lease lapsed; healing", old);
    net.heal(old);
    awaitCondition(
        "replicas 4 and 5 dropping node " + old + "'s held-back ORDER_RESPONSEs",
        () -> fenced(CUT_REPLICAS) > 0);
    awaitCondition(
        "node " + old + " answering the topology with the new leader",
        () -> roleVia(old).filter(r -> r.leader() != old).isPresent());
    assertThat(issued(old)).as("SNs issued by node %d after healing", old).isEqualTo(issuedAtLapse);
    assertThat(leased(old)).isZero();
    awaitAppendsSince(System.nanoTime(), "healing");
    double fenced = fenced(CUT_REPLICAS);
    progress("replicas 4 and 5 fenced %.0f order responses; node %d is back", fenced, old);
    double fencedAtKept = fenced(KEPT_REPLICA);

    // 4. The old leader is a quorum member and backup again: without the new leader, the role
    // can move only with its vote.
    long killedAt = System.nanoTime();
    cluster.kill(after.leader());
    progress("killed node %d", after.leader());
    int[] survivors =
        IntStream.range(0, NamespaceCluster.SEQUENCERS).filter(i -> i != after.leader()).toArray();
    Role third =
        awaitRole(
            "the role moving on from killed node " + after.leader(),
            r -> r.leader() != after.leader() && r.epoch() > after.epoch(),
            survivors);
    awaitAppendsSince(killedAt, "the kill of node " + after.leader());
    progress("node %d leads the role in epoch %d", third.leader(), third.epoch());
    cluster.restart(after.leader());
    awaitAppendsSince(System.nanoTime(), "the restart of node " + after.leader());

    System.out.printf(
        "partition of node %d (epoch %d): issued %.0f SNs cut off from replicas 4 and 5; lease"
            + " lapsed %d ms and node %d took the role in epoch %d %d ms after the cut from the"
            + " quorum; %.0f held-back order responses fenced by replicas 4 and 5 (%.0f by replica"
            + " 3); then node %d took it in epoch %d after node %d was killed%n",
        old,
        before.epoch(),
        issuedAtLapse - issuedBeforeCut,
        lapsedMs,
        after.leader(),
        after.epoch(),
        takeoverMs,
        fenced,
        fencedAtKept,
        third.leader(),
        third.epoch(),
        after.leader());
    stopAndCheck();
  }

  private void stopAndCheck() throws Exception {
    stopping.set(true);
    for (Thread t : List.copyOf(threads)) {
      t.join(DRAIN.toMillis());
      assertThat(t.isAlive()).as("%s still running after %s", t.getName(), DRAIN).isFalse();
    }
    subscribers.add(subscribe("scan"));
    for (HistorySubscriber s : subscribers) {
      s.awaitAtLeast(maxAcked.get(), DRAIN);
    }
    assertThat(failures).isEmpty();
    System.out.printf(
        "checked %d appends (%d failed), %d reads, %d subscribers%n",
        history.appendCount(), failedOps.get(), history.readCount(), history.subscriberCount());
    HistoryChecker.assertValid(history);
  }

  private static void progress(String format, Object... args) {
    System.out.println(
        "[partition] " + java.time.LocalTime.now() + " " + String.format(format, args));
  }

  /**
   * The role of {@code global} once it is steady: the same leader and epoch for two seconds, with
   * the leader holding its lease and issuing SNs (on a loaded machine a role may still move on its
   * own shortly after the start, when renewals are slow).
   */
  private Role awaitSteadyRole() throws Exception {
    Role[] steady = new Role[1];
    long[] since = new long[1];
    awaitCondition(
        "a steady leader of global's role",
        () -> {
          Role role = awaitRole("the role of global", r -> true, sequencers());
          double issued = issued(role.leader());
          boolean leading = leased(role.leader()) == 1;
          long now = System.nanoTime();
          if (!role.equals(steady[0]) || !leading) {
            steady[0] = leading ? role : null;
            since[0] = now;
            return false;
          }
          Thread.sleep(200);
          return now - since[0] > STEADY.toNanos() && issued(role.leader()) > issued;
        });
    return steady[0];
  }

  private int[] sequencers() {
    return IntStream.range(0, NamespaceCluster.SEQUENCERS).toArray();
  }

  /** The role of {@code global} as one of {@code nodes}' admin services answers it. */
  private Role awaitRole(String what, Predicate<Role> wanted, int... nodes) throws Exception {
    Role[] found = new Role[1];
    awaitCondition(
        what,
        () -> {
          for (int id : nodes) {
            Optional<Role> role = roleVia(id);
            if (role.isPresent() && wanted.test(role.get())) {
              found[0] = role.get();
              return true;
            }
          }
          return false;
        });
    return found[0];
  }

  private Optional<Role> roleVia(int id) {
    if (!cluster.isAlive(id)) {
      return Optional.empty();
    }
    try (AdminClient admin = AdminClient.connect(cluster.adminAddress(id), Duration.ofSeconds(2))) {
      Color global = admin.topology().color(Color.GLOBAL).orElseThrow();
      return Optional.of(new Role(global.sequencerId(), global.roleEpoch()));
    } catch (FlexLogException e) {
      return Optional.empty(); // cut off, or no leader the majority follows yet
    }
  }

  private double issued(int node) throws Exception {
    return cluster.metric(node, ISSUED, GLOBAL_TAG);
  }

  private double leased(int node) throws Exception {
    return cluster.metric(node, LEASED);
  }

  private double fenced(int... replicas) throws Exception {
    double sum = 0;
    for (int r : replicas) {
      sum += cluster.metric(r, FENCED);
    }
    return sum;
  }

  /** A closed-loop client: appends one record at a time, and reads back one of its own in four. */
  private void work(int client) {
    Random random = new Random(client * 7919L + 17);
    List<Long> mine = new ArrayList<>();
    String name = "client-" + client;
    try (FlexLog log = FlexLog.connect(config())) {
      for (long counter = 0; !stopping.get(); counter++) {
        byte[] payload = payload(random, client, counter);
        History.Append op = history.appendInvoked(name, Color.GLOBAL, payload);
        long start = System.nanoTime();
        try {
          long sn = log.append(Color.GLOBAL, payload);
          acked(op, start, sn);
          mine.add(sn);
        } catch (RuntimeException e) {
          op.failed(e);
          failedOps.incrementAndGet();
        }
        if (counter % 4 == 3 && !mine.isEmpty()) {
          read(log, name, mine.get(random.nextInt(mine.size())));
        }
      }
    } catch (Throwable t) {
      failures.add(new AssertionError(name + " failed", t));
    }
  }

  /**
   * Starts an append every 20 ms without waiting for the earlier ones (at most 256 in flight), so
   * that replicas keep sending new tokens to the leader while the closed-loop clients wait.
   */
  private void pulse() {
    Random random = new Random(4242);
    Semaphore inFlight = new Semaphore(PULSE_IN_FLIGHT);
    try (FlexLog log = FlexLog.connect(config())) {
      for (long counter = 0; !stopping.get(); counter++) {
        if (!inFlight.tryAcquire(1, java.util.concurrent.TimeUnit.SECONDS)) {
          continue;
        }
        byte[] payload = payload(random, CLIENTS, counter);
        History.Append op = history.appendInvoked("pulse", Color.GLOBAL, payload);
        long start = System.nanoTime();
        log.appendAsync(Color.GLOBAL, payload)
            .whenComplete(
                (sn, error) -> {
                  if (error == null) {
                    acked(op, start, sn);
                  } else {
                    op.failed(error);
                    failedOps.incrementAndGet();
                  }
                  inFlight.release();
                });
        Thread.sleep(20);
      }
      inFlight.acquire(PULSE_IN_FLIGHT); // every append has completed before the client closes
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Throwable t) {
      failures.add(new AssertionError("pulse failed", t));
    }
  }

  private void acked(History.Append op, long start, long sn) {
    op.acked(sn);
    ackedOps.incrementAndGet();
    maxAcked.accumulateAndGet(sn, Math::max);
    synchronized (acks) {
      acks.add(new long[] {start, System.nanoTime(), sn});
    }
  }

  private static byte[] payload(Random random, int client, long counter) {
    byte[] payload = new byte[12 + random.nextInt(256)];
    random.nextBytes(payload);
    ByteBuffer.wrap(payload).putInt(client).putLong(counter);
    return payload;
  }

  private void read(FlexLog log, String name, long sn) {
    History.Read read = history.readInvoked(name, Color.GLOBAL, sn);
    try {
      Optional<LogRecord> record = log.read(Color.GLOBAL, sn);
      if (record.isPresent()) {
        read.found(record.get().payload());
      } else {
        read.hole();
      }
    } catch (RuntimeException e) {
      // A failed read says nothing; the checker ignores it.
    }
  }

  /** Waits until an append begun after {@code since} was acknowledged, then for a few more. */
  private void awaitAppendsSince(long since, String after) throws Exception {
    awaitCondition(
        "an append begun after " + after + " acknowledged",
        () -> {
          synchronized (acks) {
            return acks.stream().anyMatch(a -> a[0] > since);
          }
        });
    int target = ackedOps.get() + OPS_AFTER_EACH_STEP;
    awaitCondition(OPS_AFTER_EACH_STEP + " appends after " + after, () -> ackedOps.get() >= target);
  }

  @FunctionalInterface
  private interface Condition {
    boolean holds() throws Exception;
  }

  private void awaitCondition(String what, Condition condition) throws Exception {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (!condition.holds()) {
      if (!failures.isEmpty()) {
        throw new AssertionError("failed while waiting for: " + what, failures.peek());
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError(
            "not within "
                + TIMEOUT
                + ": "
                + what
                + " (every node's logs are in "
                + dir.toAbsolutePath()
                + ")"
                + cluster.logTails(15));
      }
      Thread.sleep(20);
    }
  }

  private FlexLogConfig config() {
    return FlexLogConfig.builder()
        .bootstrapServers(cluster.bootstrap())
        .requestTimeout(Duration.ofSeconds(1))
        .deliveryTimeout(Duration.ofSeconds(10))
        .readTimeout(Duration.ofSeconds(5))
        .build();
  }

  private HistorySubscriber subscribe(String name) {
    return HistorySubscriber.start(name, Color.GLOBAL, history, config(), failures);
  }

  private void start(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    threads.add(t);
    t.start();
  }

  private static void deleteRecursively(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
