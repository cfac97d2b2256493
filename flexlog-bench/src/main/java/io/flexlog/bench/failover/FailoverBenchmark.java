package io.flexlog.bench.failover;

import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.LogRecord;
import io.flexlog.core.error.FlexLogException;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.Topology;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.server.control.AdminClient;
import io.flexlog.server.dev.DevProcesses;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code flexlog bench failover}: starts a {@code dev --processes} cluster (sequencer failover on),
 * appends to {@code global} at a steady pace from one closed-loop client, and repeatedly kills the
 * sequencer node that leads {@code global} with SIGKILL, measuring each unavailability window as
 * the time from the last acknowledged append before the kill to the first one after it; the killed
 * node is started again before the next kill. Finally every acknowledged append is read back.
 *
 * <p>Threading: the appender runs on its own thread and records acknowledgements; the calling
 * thread kills, restarts and measures.
 */
final class FailoverBenchmark {
  private FailoverBenchmark() {}

  static int run(FailoverSettings settings, PrintWriter out, PrintWriter err)
      throws InterruptedException {
    DevProcesses.Options options =
        new DevProcesses.Options(
            settings.data(),
            settings.port(),
            settings.port() + 20,
            "mapped",
            DurabilityMode.PROCESS,
            64L << 20,
            0);
    try (DevProcesses cluster = DevProcesses.start(options)) {
      out.println("cluster ready: " + cluster.clusterFile());
      out.flush();
      FailoverReport report = measure(cluster, settings, out);
      report.print(out);
      return report.lost() == 0 ? 0 : 1;
    } catch (IOException e) {
      err.println("flexlog: bench failover: " + e.getMessage());
      return 1;
    }
  }

  private static FailoverReport measure(
      DevProcesses cluster, FailoverSettings settings, PrintWriter out)
      throws InterruptedException, IOException {
    String bootstrap =
        String.join(",", cluster.nodeAddress(0), cluster.nodeAddress(1), cluster.nodeAddress(2));
    try (FlexLog log =
        FlexLog.connect(
            FlexLogConfig.builder()
                .bootstrapServers(bootstrap)
                .deliveryTimeout(settings.appendTimeout())
                .readTimeout(Duration.ofSeconds(10))
                .build())) {
      Appender appender = new Appender(log, settings.ratePerSecond());
      Thread thread = new Thread(appender, "flexlog-bench-failover-appender");
      thread.start();
      List<Long> windows = new ArrayList<>();
      try {
        Thread.sleep(settings.settle().toMillis());
        for (int kill = 1; kill <= settings.kills(); kill++) {
          int leader = leaderOfGlobal(cluster);
          long lastAckBeforeNs = appender.lastAckNs.get();
          long killedNs = System.nanoTime();
          cluster.kill(leader);
          long windowMs =
              appender.awaitAckAfter(lastAckBeforeNs, killedNs, settings.appendTimeout());
          windows.add(windowMs);
          out.printf(
              "%s kill %d: node %d (SIGKILL), unavailable %d ms (last ack before the kill to the"
                  + " first ack of an append sent after it)%n",
              LocalTime.now().truncatedTo(ChronoUnit.MILLIS), kill, leader, windowMs);
          out.flush();
          cluster.restart(leader);
          awaitQuorumRejoined(cluster, leader, settings.appendTimeout(), out);
          Thread.sleep(settings.settle().toMillis());
        }
      } finally {
        appender.stop();
        thread.join();
      }
      long lost = verify(log, appender.acked);
      return new FailoverReport(
          settings,
          "role-heartbeat-ms 100, role-lease-ms 500, Ratis election 400-800 ms",
          windows,
          appender.acked.size(),
          lost,
          appender.failed.get());
    }
  }

  /** Waits until the restarted quorum node rejoined, so that the next kill is a single failure. */
  private static void awaitQuorumRejoined(
      DevProcesses cluster, int nodeId, Duration limit, PrintWriter out)
      throws IOException, InterruptedException {
    long ms = cluster.awaitQuorumRejoined(nodeId, limit);
    out.printf("  node %d restarted and rejoined the metadata quorum in %d ms%n", nodeId, ms);
    out.flush();
  }

  /**
   * The node that leads {@code global}, from the newest topology any quorum node has applied (a
   * follower's copy may be a version behind right after a failover).
   */
  private static int leaderOfGlobal(DevProcesses cluster) {
    Topology newest = null;
    for (int id = 0; id < DevProcesses.SEQUENCERS; id++) {
      if (!cluster.isAlive(id)) {
        continue;
      }
      try (AdminClient admin =
          AdminClient.connect(cluster.adminAddress(id), Duration.ofSeconds(10))) {
        Topology topology = admin.topology();
        if (newest == null || topology.version() > newest.version()) {
          newest = topology;
        }
      } catch (FlexLogException e) {
        // Ask the next quorum node.
      }
    }
    if (newest == null) {
      throw new IllegalStateException("no admin service answers");
    }
    return newest.color(Color.GLOBAL).orElseThrow().sequencerId();
  }

  private static long verify(FlexLog log, ConcurrentHashMap<Long, String> acked) {
    long lost = 0;
    for (var entry : acked.entrySet()) {
      byte[] expected = entry.getValue().getBytes(StandardCharsets.UTF_8);
      boolean found =
          log.read(Color.GLOBAL, entry.getKey())
              .map(LogRecord::payload)
              .filter(p -> Arrays.equals(p, expected))
              .isPresent();
      if (!found) {
        lost++;
      }
    }
    return lost;
  }

  /** Appends at a steady pace; remembers every acknowledged (SN, payload) and its time. */
  private static final class Appender implements Runnable {
    private final FlexLog log;
    private final long intervalNs;
    final ConcurrentHashMap<Long, String> acked = new ConcurrentHashMap<>();
    final AtomicLong failed = new AtomicLong();
    final AtomicLong lastAckNs = new AtomicLong();

    /** When the append last acknowledged was sent. */
    final AtomicLong lastAckSentNs = new AtomicLong();

    private volatile boolean stopped;

    Appender(FlexLog log, int ratePerSecond) {
      this.log = log;
      this.intervalNs = 1_000_000_000L / ratePerSecond;
    }

    @Override
    public void run() {
      long next = System.nanoTime();
      for (long i = 0; !stopped; i++) {
        String payload = "failover-" + i;
        long sentNs = System.nanoTime();
        try {
          long sn = log.append(Color.GLOBAL, payload.getBytes(StandardCharsets.UTF_8));
          acked.put(sn, payload);
          lastAckNs.set(System.nanoTime());
          lastAckSentNs.set(sentNs); // after lastAckNs: the waiter reads that one second
        } catch (FlexLogException e) {
          failed.incrementAndGet();
        }
        next += intervalNs;
        long sleepNs = next - System.nanoTime();
        if (sleepNs > 0) {
          try {
            Thread.sleep(sleepNs / 1_000_000, (int) (sleepNs % 1_000_000));
          } catch (InterruptedException e) {
            return;
          }
        } else {
          next = System.nanoTime();
        }
      }
    }

    /**
     * The window around a kill at {@code killedNs}: from {@code before}, the last ack seen before
     * the kill, to the first ack of an append sent after the kill (an append in flight at the kill
     * may still be acknowledged by SNs the old leader issued before it died).
     */
    long awaitAckAfter(long before, long killedNs, Duration limit) throws InterruptedException {
      long deadline = killedNs + limit.toNanos();
      while (lastAckSentNs.get() <= killedNs) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "no append acknowledged within " + limit.toSeconds() + " s of the kill");
        }
        Thread.sleep(1);
      }
      return (lastAckNs.get() - before) / 1_000_000;
    }

    void stop() {
      stopped = true;
    }
  }
}
