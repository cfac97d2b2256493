package io.flexlog.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.LogRecord;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Sn;
import io.flexlog.core.testing.FreePorts;
import io.flexlog.it.history.History;
import io.flexlog.it.history.HistoryChecker;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.server.control.AdminClient;
import io.flexlog.server.dev.DevProcesses;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The kill loop of issue 10 on real processes ({@code dev --processes}: sequencer nodes 0-2, which
 * are also the metadata quorum, with sequencer failover on; replica nodes 3-5): under a steady load
 * of appends, reads and subscriptions of {@code global}, it kills with SIGKILL, in turn, the node
 * that leads {@code global}'s role and another quorum node, restarts each one, and after every kill
 * requires an append begun after the kill to be acknowledged. At the end a fresh subscription scans
 * the color from SN 0 and the {@link HistoryChecker} checks the whole history: no append at two
 * SNs, no SN with two records, every acknowledged append delivered by every subscriber and the
 * scan, reads consistent with them; and every SN issued after a takeover is in a larger epoch than
 * every SN acknowledged before it.
 *
 * <p>{@code -Dflexlog.it.failoverKills=N} sets the number of kills (20 in {@code mvn verify}; the
 * {@code failover-soak} profile runs 200). No kill may leave {@code global} unavailable for {@link
 * #MAX_WINDOW_MS} or more.
 */
class FailoverKillLoopTest {
  private static final int KILLS = Integer.getInteger("flexlog.it.failoverKills", 20);
  private static final int CLIENTS = 3;
  private static final int SUBSCRIBERS = 2;
  private static final Duration RESUME_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration DRAIN = Duration.ofSeconds(30);
  private static final int OPS_BETWEEN_KILLS = 40;

  /**
   * The longest unavailability window a single kill may cause ({@code
   * -Dflexlog.it.failoverMaxWindowMs}). Generous for a loaded machine (the worst seen on a 2-core
   * machine at load 20 was about 5 s); a quorum leader that waits Ratis' default 10 s before it
   * stands again after a step-down made windows of 12-26 s (docs/operations.md, "Why some kills
   * stopped appends for about 12 s").
   */
  private static final long MAX_WINDOW_MS = Long.getLong("flexlog.it.failoverMaxWindowMs", 10_000);

  /** Kept after a failed run (every node's logs of every incarnation are in it); cleared first. */
  private final Path dir = Path.of("target", "failover-kill-loop");

  private DevProcesses cluster;
  private final History history = new History();
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
  private final AtomicLong maxAcked = new AtomicLong();
  private final AtomicLong lastAckedStart = new AtomicLong();
  private final AtomicInteger ackedOps = new AtomicInteger();
  private final AtomicInteger failedOps = new AtomicInteger();
  private final List<Thread> threads = new ArrayList<>();
  private final List<HistorySubscriber> subscribers = new ArrayList<>();
  private final List<Long> windowsMs = new ArrayList<>();

  /** (start nanos, acknowledged nanos, SN) of every acknowledged append. */
  private final List<long[]> acks = new ArrayList<>();

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
  }

  @Test
  @Timeout(1_800)
  void shouldKeepEveryGuaranteeAcrossKillsOfRoleLeadersAndQuorumNodes() throws Exception {
    deleteRecursively(dir);
    int base = FreePorts.consecutive(DevProcesses.NODES + 20 + 2 * DevProcesses.SEQUENCERS);
    cluster =
        DevProcesses.start(
            new DevProcesses.Options(
                dir, base, base + 20, "mapped", DurabilityMode.PROCESS, 32L << 20, 0));
    for (int i = 0; i < SUBSCRIBERS; i++) {
      subscribers.add(subscribe("subscriber-" + i));
    }
    for (int client = 0; client < CLIENTS; client++) {
      int id = client;
      start("client-" + id, () -> work(id));
    }
    awaitAppendsSince(System.nanoTime(), "the start");

    List<String> kills = new ArrayList<>();
    for (int kill = 0; kill < KILLS; kill++) {
      int leader = leaderOfGlobal();
      int victim = kill % 2 == 0 ? leader : (leader + 1 + kill / 2 % 2) % DevProcesses.SEQUENCERS;
      long lastAckedBefore = maxAcked.get();
      long killedAt = System.nanoTime();
      cluster.kill(victim);
      // Once kill returns the victim is gone and issues nothing more; an append begun between
      // killedAt and now may still have got one of its SNs (seen once in CI: epoch 6 after the
      // kill of epoch 6's leader).
      long goneAt = System.nanoTime();
      kills.add(victim == leader ? "leader " + victim : "quorum node " + victim);
      awaitAppendsSince(goneAt, "the kill of node " + victim);
      windowsMs.add(unavailableMs(killedAt));
      if (victim == leader) {
        int next = leaderOfGlobal();
        assertThat(next).as("the role's leader after killing node %d", victim).isNotEqualTo(victim);
        assertThat(Sn.epoch(firstAckedSince(goneAt)))
            .as("SNs after the takeover from node %d", victim)
            .isGreaterThan(Sn.epoch(lastAckedBefore));
      }
      cluster.restart(victim);
      // Each kill is a single failure: the next one waits until this node is back in the quorum.
      cluster.awaitQuorumRejoined(victim, RESUME_TIMEOUT);
    }
    stopAndCheck(kills);
  }

  private void stopAndCheck(List<String> kills) throws Exception {
    stopping.set(true);
    for (Thread t : List.copyOf(threads)) {
      if (t.getName().startsWith("client-")) {
        t.join(DRAIN.toMillis());
      }
    }
    subscribers.add(subscribe("scan")); // the final scan
    for (HistorySubscriber s : subscribers) {
      s.awaitAtLeast(maxAcked.get(), DRAIN);
    }
    assertThat(failures).isEmpty();
    System.out.printf(
        "kills: %s; unavailable after each (ms, from the last acknowledgement before the kill to"
            + " the first acknowledgement of an append begun after it): %s; checked %d appends (%d"
            + " failed ops), %d reads, %d subscribers%n",
        kills,
        windowsMs,
        history.appendCount(),
        failedOps.get(),
        history.readCount(),
        history.subscriberCount());
    HistoryChecker.assertValid(history);
    assertThat(windowsMs.stream().mapToLong(Long::longValue).max().orElse(0))
        .as(
            "the longest unavailability window (ms) of the kills %s: %s (every node's logs are in"
                + " %s)",
            kills, windowsMs, dir.toAbsolutePath())
        .isLessThan(MAX_WINDOW_MS);
  }

  /** The SN of the first append acknowledged that began after {@code sinceNanos}. */
  private long firstAckedSince(long sinceNanos) {
    synchronized (acks) {
      return acks.stream()
          .filter(a -> a[0] > sinceNanos)
          .min(java.util.Comparator.comparingLong(a -> a[1]))
          .orElseThrow()[2];
    }
  }

  /**
   * The unavailability window of a kill at {@code killedNanos}: from the last acknowledgement
   * before it to the first acknowledgement of an append begun after it.
   */
  private long unavailableMs(long killedNanos) {
    synchronized (acks) {
      long lastBefore =
          acks.stream().mapToLong(a -> a[1]).filter(t -> t < killedNanos).max().orElseThrow();
      long firstAfter =
          acks.stream().filter(a -> a[0] > killedNanos).mapToLong(a -> a[1]).min().orElseThrow();
      return (firstAfter - lastBefore) / 1_000_000;
    }
  }

  private int leaderOfGlobal() throws Exception {
    long deadline = System.nanoTime() + RESUME_TIMEOUT.toNanos();
    while (true) {
      for (int id = 0; id < DevProcesses.SEQUENCERS; id++) {
        if (!cluster.isAlive(id)) {
          continue;
        }
        try (AdminClient admin =
            AdminClient.connect(cluster.adminAddress(id), Duration.ofSeconds(5))) {
          return admin.topology().color(Color.GLOBAL).orElseThrow().sequencerId();
        } catch (FlexLogException e) {
          // The next quorum node.
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no admin service answered within " + RESUME_TIMEOUT);
      }
      Thread.sleep(100);
    }
  }

  private void work(int client) {
    Random random = new Random(client * 7919L + 17);
    List<Long> mine = new ArrayList<>();
    String name = "client-" + client;
    try (FlexLog log = FlexLog.connect(config())) {
      for (long counter = 0; !stopping.get(); counter++) {
        byte[] payload = new byte[12 + random.nextInt(256)];
        random.nextBytes(payload);
        ByteBuffer.wrap(payload).putInt(client).putLong(counter);
        History.Append op = history.appendInvoked(name, Color.GLOBAL, payload);
        long start = System.nanoTime();
        try {
          long sn = log.append(Color.GLOBAL, payload);
          op.acked(sn);
          ackedOps.incrementAndGet();
          maxAcked.accumulateAndGet(sn, Math::max);
          lastAckedStart.accumulateAndGet(start, Math::max);
          synchronized (acks) {
            acks.add(new long[] {start, System.nanoTime(), sn});
          }
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
        "an append begun after " + after + " acknowledged", () -> lastAckedStart.get() > since);
    int target = ackedOps.get() + OPS_BETWEEN_KILLS;
    awaitCondition(OPS_BETWEEN_KILLS + " appends after " + after, () -> ackedOps.get() >= target);
  }

  private void awaitCondition(String what, BooleanSupplier condition) throws Exception {
    long deadline = System.nanoTime() + RESUME_TIMEOUT.toNanos();
    while (!condition.getAsBoolean()) {
      if (!failures.isEmpty()) {
        throw new AssertionError("failed while waiting for: " + what, failures.peek());
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError(
            "not within "
                + RESUME_TIMEOUT
                + ": "
                + what
                + " (every node's logs are in "
                + dir.toAbsolutePath()
                + ")"
                + logTails());
      }
      Thread.sleep(20);
    }
  }

  private String logTails() {
    StringBuilder out = new StringBuilder();
    for (int id = 0; id < DevProcesses.NODES; id++) {
      try (Stream<String> lines = Files.lines(cluster.log(id))) {
        List<String> all = lines.toList();
        out.append("\n--- node ").append(id).append(" (last 15 lines)\n");
        all.subList(Math.max(0, all.size() - 15), all.size())
            .forEach(l -> out.append(l).append('\n'));
      } catch (IOException e) {
        out.append("\n--- node ").append(id).append(": ").append(e.getMessage());
      }
    }
    return out.toString();
  }

  private static void deleteRecursively(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
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
}
