package io.flexlog.replica.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
 * Real crashes: a child JVM ({@link CrashWriterMain}) appends and commits while this test reads
 * what it acknowledged, then kills it with SIGKILL ({@link Process#destroyForcibly()}) at a random
 * moment. The next child recovers the same log and reports every entry it finds; every acknowledged
 * entry must be there, intact and with its SN, and nothing torn may appear.
 */
class LogStorageCrashTest {
  private static final int KILLS_PER_ENGINE = 12;
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
    long capacity = engine.equals("llpl") ? 64L << 20 : 32L << 20;
    long seed = System.nanoTime();
    java.util.Random random = new java.util.Random(seed);
    Map<Long, Long> acked = new HashMap<>(); // seq -> sn, durable commits
    Set<Long> durable = new HashSet<>(); // seqs whose pending append was durable
    int totalRecovered = 0;

    for (int round = 0; round <= KILLS_PER_ENGINE; round++) {
      String context = engine + " round " + round + " seed " + seed;
      Child child = Child.start(engine, dir, capacity, CHUNK_BYTES, random.nextLong());
      try {
        List<String> recovery = child.readUntilReady(context);
        Map<Long, Long> recovered = new HashMap<>();
        for (String line : recovery) {
          String[] f = line.split(" ");
          assertThat(f[3]).as("%s: entry %s intact", context, f[1]).isEqualTo("ok");
          assertThat(recovered.put(Long.parseLong(f[1]), Long.parseLong(f[2])))
              .as("%s: entry %s recovered once", context, f[1])
              .isNull();
        }
        for (long seq : durable) {
          assertThat(recovered).as("%s: durable entry %d", context, seq).containsKey(seq);
        }
        for (Map.Entry<Long, Long> ack : acked.entrySet()) {
          assertThat(recovered.get(ack.getKey()))
              .as("%s: SN of acknowledged entry %d", context, ack.getKey())
              .isEqualTo(ack.getValue());
        }
        totalRecovered = recovered.size();
        if (round == KILLS_PER_ENGINE) {
          break;
        }
        Thread.sleep(random.nextInt(250));
      } finally {
        child.kill();
      }
      for (String line : child.remainingLines()) {
        String[] f = line.split(" ");
        if (f[0].equals("P")) {
          durable.add(Long.parseLong(f[1]));
        } else if (f[0].equals("A")) {
          acked.put(Long.parseLong(f[1]), Long.parseLong(f[2]));
        }
      }
    }
    System.out.printf(
        "%s: %d kills, %d durable appends and %d durable commits acknowledged, %d entries at the"
            + " last recovery (seed %d)%n",
        engine, KILLS_PER_ENGINE, durable.size(), acked.size(), totalRecovered, seed);
    assertThat(acked).as("acknowledged commits across all kills").hasSizeGreaterThan(100);
    assertThat(totalRecovered).isGreaterThanOrEqualTo(durable.size());
  }

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
          if (line.endsWith(";") && !line.isEmpty() && "RPAF".indexOf(line.charAt(0)) >= 0) {
            lines.add(line.substring(0, line.length() - 1));
          }
        }
      } catch (IOException e) {
        // The pipe breaks when the child dies: whatever was read is all there is.
      }
    }

    List<String> readUntilReady(String context) throws InterruptedException {
      List<String> recovered = new ArrayList<>();
      while (true) {
        String line = lines.poll(60, TimeUnit.SECONDS);
        assertThat(line).as("%s: child never finished recovery", context).isNotNull();
        if (line.startsWith("READY")) {
          return recovered;
        }
        recovered.add(line);
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
