package io.flexlog.bench.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.replica.storage.pm.LlplLogStorage;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Smoke runs of the whole comparison on the real engines, short enough for the test suite: both
 * engines must complete operations, read back what they wrote, and leave no data behind.
 */
class StorageComparisonTest {
  @TempDir Path data;
  @TempDir Path output;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private StorageSettings settings(
      String engine, DurabilityMode mode, int threads, int readPercent, Path json) {
    return new StorageSettings(
        256,
        threads,
        readPercent,
        mode,
        engine,
        Optional.empty(),
        Duration.ofMillis(300),
        Duration.ofMillis(100),
        data,
        64L << 20,
        Optional.empty(),
        Optional.ofNullable(json));
  }

  private int run(StorageSettings settings) throws InterruptedException {
    return StorageComparison.run(settings, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  @Test
  @SuppressWarnings("unchecked")
  void shouldRunBothEnginesWithReadsAndEndWithTheRatioLine() throws Exception {
    Path json = output.resolve("run.json");

    int exit = run(settings(StorageEngines.MAPPED, DurabilityMode.PROCESS, 2, 50, json));

    assertThat(exit).as("stderr: %s", err).isZero();
    List<String> lines = out.toString().lines().toList();
    assertThat(lines.get(lines.size() - 1)).matches("ratio flexlog/rocksdb = \\d+\\.\\d\\d");
    Map<String, Object> result = ReportFixtures.parseJson(Files.readString(json));
    for (String engine : List.of("flexlog", "rocksdb")) {
      Map<String, Object> e = (Map<String, Object>) result.get(engine);
      assertThat(((Number) e.get("appends")).longValue()).as(engine).isPositive();
      assertThat(((Number) e.get("reads")).longValue()).as(engine).isPositive();
      assertThat(((Number) e.get("opsPerSec")).doubleValue()).as(engine).isPositive();
      // Each thread read 1,000 records back after the run and found them identical.
      assertThat(e.get("verifiedRecords")).as(engine).isEqualTo(2000);
    }
    assertThat(((Number) result.get("ratio")).doubleValue()).isPositive();
    assertThat(lines.get(lines.size() - 1))
        .endsWith(String.format(java.util.Locale.ROOT, "%.2f", result.get("ratio")));
    assertNoDataLeft();
  }

  @Test
  @SuppressWarnings("unchecked")
  void shouldRunTheTieredEngineThroughItsCacheAndReportItsTierStats() throws Exception {
    Path json = output.resolve("tiered.json");
    StorageSettings s = settings(StorageEngines.MAPPED, DurabilityMode.PROCESS, 1, 50, json);
    StorageSettings tiered =
        new StorageSettings(
            s.recordBytes(),
            s.threads(),
            s.readPercent(),
            s.durability(),
            s.engine(),
            s.engineNotice(),
            s.duration(),
            s.warmup(),
            s.dataDir(),
            s.logBytes(),
            Optional.of(new TieredOptions(16L << 20, 1L << 20)),
            s.json());

    int exit = run(tiered);

    assertThat(exit).as("stderr: %s", err).isZero();
    assertThat(out.toString())
        .contains(
            "engine=tiered pm-engine=mapped cache-bytes=1MiB pm-bytes=16MiB durability=process")
        .contains("flexlog: FlexLog replica log, engine tiered (off-heap cache 1MiB")
        .containsPattern("cache +[\\d,]+ hits, [\\d,]+ misses")
        .contains("segments written")
        .containsPattern("ratio flexlog/rocksdb = \\d+\\.\\d\\d\\n$");
    Map<String, Object> result = ReportFixtures.parseJson(Files.readString(json));
    Map<String, Object> flexlog = (Map<String, Object>) result.get("flexlog");
    assertThat(flexlog).containsEntry("engine", "tiered").containsEntry("pmEngine", "mapped");
    Map<String, Object> tiers = (Map<String, Object>) flexlog.get("tiers");
    long hits = ((Number) tiers.get("cacheHits")).longValue();
    long misses = ((Number) tiers.get("cacheMisses")).longValue();
    // Every measured read went through the tiered engine's read path, and only those.
    assertThat(hits + misses).isEqualTo(((Number) flexlog.get("reads")).longValue());
    assertThat(hits).isPositive();
    assertThat(result.get("rocksdb"))
        .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
        .doesNotContainKey("tiers");
    assertNoDataLeft();
  }

  @Test
  void shouldRunLlplInProcessMode() throws Exception {
    assumeTrue(
        LlplLogStorage.isAvailable(),
        () -> "llpl engine not tested: " + LlplLogStorage.unavailableReason());

    int exit = run(settings(StorageEngines.LLPL, DurabilityMode.PROCESS, 1, 95, null));

    assertThat(exit).as("stderr: %s", err).isZero();
    assertThat(out.toString())
        .contains("flexlog: FlexLog replica log, engine llpl, durability process")
        .contains("rocksdb: RocksDB")
        .contains("sync=false")
        .contains("verified     1,000 records read back identical");
    assertNoDataLeft();
  }

  @Test
  void shouldSyncBothEnginesInFsyncMode() throws Exception {
    int exit = run(settings(StorageEngines.MAPPED, DurabilityMode.FSYNC, 1, 0, null));

    assertThat(exit).as("stderr: %s", err).isZero();
    assertThat(out.toString())
        .contains("durability fsync")
        .contains("WAL on, sync=true")
        .containsPattern("ratio flexlog/rocksdb = \\d+\\.\\d\\d\\n$");
    assertNoDataLeft();
  }

  @Test
  void shouldFailTheRunWhenAnEngineReadsBackWrongBytes() {
    RecordPattern pattern = new RecordPattern(256);
    StorageLoad.Plan plan =
        settings(StorageEngines.MAPPED, DurabilityMode.PROCESS, 1, 50, null).plan();

    for (RecordStore engine :
        List.<RecordStore>of(
            new FlexLogStore(
                StorageEngines.MAPPED,
                data.resolve("flexlog"),
                64L << 20,
                16L << 20,
                DurabilityMode.PROCESS,
                Optional.empty(),
                pattern),
            new RocksDbStore(data.resolve("rocksdb"), DurabilityMode.PROCESS, pattern))) {
      try (RecordStore broken = new CorruptingStore(engine)) {
        assertThatThrownBy(
                () -> StorageLoad.run(broken, plan, pattern, new PrintWriter(new StringWriter())))
            .as(engine.name())
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("back wrong");
      }
    }
  }

  @Test
  void shouldReportAFailedEngineWithExitCodeOne() throws Exception {
    Files.writeString(data.resolve("not-a-dir"), "x");
    StorageSettings s = settings(StorageEngines.MAPPED, DurabilityMode.PROCESS, 1, 0, null);
    StorageSettings unusable =
        new StorageSettings(
            s.recordBytes(),
            s.threads(),
            s.readPercent(),
            s.durability(),
            s.engine(),
            s.engineNotice(),
            s.duration(),
            s.warmup(),
            data.resolve("not-a-dir"),
            s.logBytes(),
            s.tiered(),
            s.json());

    assertThat(run(unusable)).isEqualTo(StorageComparison.EXIT_FAILED);
    assertThat(err.toString()).contains("cannot create a directory in --data-dir");
    assertThat(out.toString()).doesNotContain("ratio flexlog/rocksdb");
  }

  private void assertNoDataLeft() throws IOException {
    try (Stream<Path> left = Files.list(data)) {
      assertThat(left).isEmpty();
    }
  }

  /** Passes everything through but flips the last byte of every record read. */
  private static final class CorruptingStore implements RecordStore {
    private final RecordStore inner;

    CorruptingStore(RecordStore inner) {
      this.inner = inner;
    }

    @Override
    public String name() {
      return inner.name();
    }

    @Override
    public String description() {
      return inner.description();
    }

    @Override
    public RecordLog openLog(int thread) {
      RecordLog log = inner.openLog(thread);
      return new RecordLog() {
        @Override
        public boolean append() {
          return log.append();
        }

        @Override
        public void preload(int records) {
          log.preload(records);
        }

        @Override
        public int read(long recordNumber, byte[] destination) {
          int length = log.read(recordNumber, destination);
          destination[length - 1] ^= 1;
          return length;
        }

        @Override
        public long written() {
          return log.written();
        }

        @Override
        public long firstRecord() {
          return log.firstRecord();
        }

        @Override
        public void makeRoom() {
          log.makeRoom();
        }

        @Override
        public void close() {
          log.close();
        }
      };
    }

    @Override
    public void close() {
      inner.close();
    }
  }
}
