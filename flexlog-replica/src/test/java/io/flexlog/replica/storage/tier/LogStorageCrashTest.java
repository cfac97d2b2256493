package io.flexlog.replica.storage.tier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.flexlog.replica.storage.pm.LlplLogStorage;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real crashes: a child JVM ({@link CrashWriterMain}) appends, commits and trims through the tiered
 * storage over a small PM log, so it moves chunks to SSD segments all the time, while this test
 * reads what it acknowledged; then the test kills it with SIGKILL ({@link
 * Process#destroyForcibly()}) at a random moment: mid-append, mid-segment, between a segment's
 * fsync and the PM free, mid-trim. The next child recovers the same PM log and segments and reports
 * every entry it finds; every acknowledged entry above the durable trim point must be there exactly
 * once, intact and with its SN, no trimmed entry may come back, and nothing torn may appear.
 *
 * <p>{@value #KILLS_PROPERTY} sets the kills per engine (default {@value #DEFAULT_KILLS}); the
 * Maven profile {@code soak} raises it for a long run.
 */
class LogStorageCrashTest {
  static final String KILLS_PROPERTY = "flexlog.crash.kills";
  static final int DEFAULT_KILLS = 12;
  private static final int KILLS_PER_ENGINE = Integer.getInteger(KILLS_PROPERTY, DEFAULT_KILLS);
  private static final long CHUNK_BYTES = 256 * 1024;

  @TempDir Path dir;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"mapped", "llpl"})
  void shouldRecoverEveryAcknowledgedEntryAfterKill(String engine) throws Exception {
    if (engine.equals("llpl")) {
      assumeTrue(
          LlplLogStorage.isAvailable(),
          () -> "llpl engine not tested: " + LlplLogStorage.unavailableReason());
    }
    // Small PM logs: about 2 MiB (mapped) and the chunks of a 16 MiB llpl heap.
    long capacity = engine.equals("llpl") ? 16L << 20 : 2L << 20;
    long seed = System.nanoTime();
    java.util.Random random = new java.util.Random(seed);
    Map<Long, Long> acked = new HashMap<>(); // seq -> sn, durable commits
    Set<Long> durable = new HashSet<>(); // seqs whose pending append was durable
    long durableTrim = 0; // the highest trim point a child reported durable
    int trims = 0;
    int maxSegments = 0;
    int totalRecovered = 0;

    for (int round = 0; round <= KILLS_PER_ENGINE; round++) {
      String context = engine + " round " + round + " seed " + seed;
      Child child = Child.start(engine, dir, capacity, CHUNK_BYTES, random.nextLong());
      List<String> seen = new ArrayList<>();
      try {
        Recovery recovery = child.readUntilReady(context);
        long trimPoint = recovery.trimPoint();
        assertThat(trimPoint)
            .as("%s: durable trim point", context)
            .isGreaterThanOrEqualTo(durableTrim);
        maxSegments = Math.max(maxSegments, recovery.segments());
        Map<Long, Long> recovered = new HashMap<>();
        for (String line : recovery.entries()) {
          String[] f = line.split(" ");
          long seq = Long.parseLong(f[1]);
          long sn = Long.parseLong(f[2]);
          assertThat(f[3]).as("%s: entry %s intact", context, seq).isEqualTo("ok");
          assertThat(recovered.put(seq, sn))
              .as("%s: entry %s recovered once", context, seq)
              .isNull();
          assertThat(sn == 0 || sn > trimPoint)
              .as("%s: entry %d with SN %d is above the trim point %d", context, seq, sn, trimPoint)
              .isTrue();
        }
        for (long seq : durable) {
          if (CrashWriterMain.sn(seq) > trimPoint) {
            assertThat(recovered).as("%s: durable entry %d", context, seq).containsKey(seq);
          }
        }
        for (Map.Entry<Long, Long> ack : acked.entrySet()) {
          if (ack.getValue() > trimPoint) {
            assertThat(recovered.get(ack.getKey()))
                .as("%s: SN of acknowledged entry %d", context, ack.getKey())
                .isEqualTo(ack.getValue());
          }
        }
        totalRecovered = recovered.size();
        if (round == KILLS_PER_ENGINE) {
          break;
        }
        if (round == KILLS_PER_ENGINE / 2 && trims == 0) {
          // The first trim needs KEEP_UNTRIMMED durable commits, which a slow disk may not reach
          // in the random runs before it: this child runs until it trimmed, so every run also
          // kills children whose log was trimmed.
          seen.addAll(child.linesThroughFirstTrim(context));
        } else {
          Thread.sleep(random.nextInt(250));
        }
      } finally {
        child.kill();
      }
      seen.addAll(child.remainingLines());
      for (String line : seen) {
        String[] f = line.split(" ");
        switch (f[0]) {
          case "P" -> durable.add(Long.parseLong(f[1]));
          case "A" -> acked.put(Long.parseLong(f[1]), Long.parseLong(f[2]));
          case "T" -> {
            durableTrim = Math.max(durableTrim, Long.parseLong(f[1]));
            trims++;
          }
          default -> {}
        }
      }
    }
    System.out.printf(
        "%s: %d kills, %d durable appends and %d durable commits acknowledged, %d trims, up to %d"
            + " segments, %d entries at the last recovery (seed %d)%n",
        engine,
        KILLS_PER_ENGINE,
        durable.size(),
        acked.size(),
        trims,
        maxSegments,
        totalRecovered,
        seed);
    assertThat(acked).as("acknowledged commits across all kills").hasSizeGreaterThan(100);
    assertThat(maxSegments).as("the child moved entries to SSD segments").isPositive();
    assertThat(trims).as("the child trimmed").isPositive();
  }

  /** What a child found at start-up. */
  private record Recovery(List<String> entries, long trimPoint, int segments) {}

  /** One child JVM and the protocol lines it printed. */
  private static final class Child {
    private final Process process;
    private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Thread reader;

    private Child(Process process) {
      this.process = process;
      this.reader = new Thread(this::pump, "crash-child-reader");
      reader.setDaemon(true);
      reader.start();
    }

    static Child start(String engine, Path dir, long capacity, long chunkBytes, long seed)
        throws IOException {
      ProcessBuilder builder =
          new ProcessBuilder(
              Path.of(System.getProperty("java.home"), "bin", "java").toString(),
              "-Xmx128m",
              "-XX:TieredStopAtLevel=1",
              "-cp",
              System.getProperty("java.class.path"),
              CrashWriterMain.class.getName(),
              engine,
              dir.toString(),
              Long.toString(capacity),
              Long.toString(chunkBytes),
              Long.toString(seed));
      builder.environment().put(LlplLogStorage.PMEM_FORCE_ENV, "1");
      builder.redirectError(ProcessBuilder.Redirect.DISCARD);
      return new Child(builder.start());
    }

    private void pump() {
      try (BufferedReader in =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII))) {
        String line;
        while ((line = in.readLine()) != null) {
          // Only complete protocol lines: a line cut by the kill has no terminator.
          if (line.endsWith(";") && !line.isEmpty() && "RPAT".indexOf(line.charAt(0)) >= 0) {
            lines.add(line.substring(0, line.length() - 1));
          }
        }
      } catch (IOException e) {
        // The pipe breaks when the child dies: whatever was read is all there is.
      }
    }

    Recovery readUntilReady(String context) throws InterruptedException {
      List<String> recovered = new ArrayList<>();
      while (true) {
        String line = lines.poll(60, TimeUnit.SECONDS);
        assertThat(line).as("%s: child never finished recovery", context).isNotNull();
        if (line.startsWith("READY")) {
          String[] f = line.split(" ");
          return new Recovery(recovered, Long.parseLong(f[2]), Integer.parseInt(f[3]));
        }
        recovered.add(line);
      }
    }

    /** The lines the child prints until its first trim is durable, that one included. */
    List<String> linesThroughFirstTrim(String context) throws InterruptedException {
      List<String> read = new ArrayList<>();
      while (true) {
        String line = lines.poll(120, TimeUnit.SECONDS);
        assertThat(line).as("%s: child stopped before its first trim", context).isNotNull();
        read.add(line);
        if (line.startsWith("T ")) {
          return read;
        }
      }
    }

    void kill() throws InterruptedException {
      process.destroyForcibly(); // SIGKILL on Linux: no shutdown hooks, no flush
      process.waitFor(30, TimeUnit.SECONDS);
      reader.join(TimeUnit.SECONDS.toMillis(30));
    }

    List<String> remainingLines() {
      List<String> rest = new ArrayList<>();
      lines.drainTo(rest);
      return rest;
    }
  }
}
