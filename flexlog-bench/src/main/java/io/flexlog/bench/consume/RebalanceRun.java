package io.flexlog.bench.consume;

import io.flexlog.client.FlexLog;
import io.flexlog.client.consumer.ColorShard;
import io.flexlog.client.consumer.ConsumerConfig;
import io.flexlog.client.consumer.ConsumerRecord;
import io.flexlog.client.consumer.FlexLogConsumer;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Rebalance time: a group of 4 members over the color's shards (three in this process, one in a
 * child process), records appended at a fixed rate; once every member holds its share, the child is
 * killed with SIGKILL; the time until a surviving member polls a record of every shard the child
 * held is the rebalance time (session timeout to notice, then the new assignment and the reopened
 * streams).
 */
final class RebalanceRun {
  private static final int MEMBERS = 4;

  private final String bootstrap;
  private final String color;
  private final int recordBytes;
  private final int rate;
  private final int sessionTimeoutMs;
  private final PrintWriter out;
  private final Map<ColorShard, Long> firstAfterKillNs = new ConcurrentHashMap<>();
  private volatile long killedAtNs = Long.MAX_VALUE;
  private volatile boolean running = true;

  RebalanceRun(
      String bootstrap,
      String color,
      int recordBytes,
      int rate,
      int sessionTimeoutMs,
      PrintWriter out) {
    this.bootstrap = bootstrap;
    this.color = color;
    this.recordBytes = recordBytes;
    this.rate = rate;
    this.sessionTimeoutMs = sessionTimeoutMs;
    this.out = out;
  }

  int run() throws Exception {
    String group = "rebalance-" + System.currentTimeMillis();
    ScheduledExecutorService producer = Executors.newSingleThreadScheduledExecutor();
    List<FlexLogConsumer<byte[], byte[]>> survivors = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    Process victim = null;
    try (FlexLog log = FlexLog.connect(bootstrap)) {
      producer.scheduleAtFixedRate(
          () -> log.appendAsync(color, Loader.payload(recordBytes)),
          0,
          1_000_000_000L / rate,
          TimeUnit.NANOSECONDS);
      victim = startVictim(group);
      for (int i = 0; i < MEMBERS - 1; i++) {
        FlexLogConsumer<byte[], byte[]> c = member(group);
        survivors.add(c);
      }
      int total =
          log.topology().shardsInSubtree(log.topology().color(color).orElseThrow().id()).size();
      Set<ColorShard>[] held = waitForBalance(survivors, total);
      Set<ColorShard> victimShards = victimShards(held, total);
      for (FlexLogConsumer<byte[], byte[]> c : survivors) {
        Thread t = new Thread(() -> pollLoop(c), "member");
        threads.add(t);
        t.start();
      }
      victim.destroyForcibly();
      killedAtNs = System.nanoTime();
      long deadline = killedAtNs + 120_000_000_000L;
      while (!firstAfterKillNs.keySet().containsAll(victimShards) && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      long worst = 0;
      for (ColorShard cs : victimShards) {
        worst = Math.max(worst, firstAfterKillNs.getOrDefault(cs, Long.MAX_VALUE) - killedAtNs);
      }
      out.printf(
          "rebalance after SIGKILL of 1 of %d members (%d shards, session.timeout.ms %d): its %d"
              + " shards read again after %.0f ms%n",
          MEMBERS, total, sessionTimeoutMs, victimShards.size(), worst / 1e6);
      out.flush();
      return firstAfterKillNs.keySet().containsAll(victimShards) ? 0 : 1;
    } finally {
      running = false;
      producer.shutdownNow();
      for (Thread t : threads) {
        t.join(5000);
      }
      survivors.forEach(FlexLogConsumer::close);
      if (victim != null) {
        victim.destroyForcibly();
      }
    }
  }

  private FlexLogConsumer<byte[], byte[]> member(String group) {
    Map<String, Object> settings =
        Map.of(
            "bootstrap.servers",
            bootstrap,
            "group.id",
            group,
            "auto.offset.reset",
            "latest",
            "session.timeout.ms",
            Integer.toString(sessionTimeoutMs),
            "heartbeat.interval.ms",
            Integer.toString(sessionTimeoutMs / 3));
    FlexLogConsumer<byte[], byte[]> c =
        new FlexLogConsumer<>(ConsumerConfig.fromMap(settings), null, null);
    c.subscribe(List.of(color));
    return c;
  }

  private Process startVictim(String group) throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    return new ProcessBuilder(
            java,
            "-cp",
            System.getProperty("java.class.path"),
            ConsumeMember.class.getName(),
            bootstrap,
            color,
            group,
            Integer.toString(sessionTimeoutMs))
        .redirectErrorStream(true)
        .redirectOutput(Path.of(System.getProperty("java.io.tmpdir"), group + ".log").toFile())
        .start();
  }

  /** Polls the survivors until they hold all but the victim's share. */
  @SuppressWarnings("unchecked")
  private Set<ColorShard>[] waitForBalance(
      List<FlexLogConsumer<byte[], byte[]>> survivors, int total) {
    int share = total / MEMBERS;
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (System.nanoTime() < deadline) {
      int held = 0;
      boolean even = true;
      for (FlexLogConsumer<byte[], byte[]> c : survivors) {
        c.poll(Duration.ofMillis(20));
        held += c.assignment().size();
        even &= c.assignment().size() == share;
      }
      if (even && held == total - share) {
        Set<ColorShard>[] sets = new Set[survivors.size()];
        for (int i = 0; i < sets.length; i++) {
          sets[i] = new TreeSet<>(survivors.get(i).assignment());
        }
        return sets;
      }
    }
    throw new IllegalStateException("the group of " + MEMBERS + " did not balance within 60 s");
  }

  private Set<ColorShard> victimShards(Set<ColorShard>[] held, int total) {
    Set<ColorShard> all = new TreeSet<>();
    for (Set<ColorShard> s : held) {
      all.addAll(s);
    }
    Set<ColorShard> victim = new TreeSet<>();
    int colorShards = 0;
    try (FlexLog log = FlexLog.connect(bootstrap)) {
      int id = log.topology().color(color).orElseThrow().id();
      for (var shard : log.topology().shardsInSubtree(id)) {
        colorShards++;
        ColorShard cs = ColorShard.of(color, shard.id());
        if (!all.contains(cs)) {
          victim.add(cs);
        }
      }
    }
    if (colorShards != total) {
      throw new IllegalStateException("the color's shards changed during the run");
    }
    return victim;
  }

  private void pollLoop(FlexLogConsumer<byte[], byte[]> c) {
    while (running) {
      for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(20))) {
        if (System.nanoTime() > killedAtNs) {
          firstAfterKillNs.putIfAbsent(r.colorShard(), System.nanoTime());
        }
      }
    }
  }
}
