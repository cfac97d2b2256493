package io.flexlog.bench.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StorageReportTest {

  @Test
  void shouldRoundTheRatioOfOperationsPerSecondToTwoDecimals() {
    ComparisonResult result = ReportFixtures.comparison();

    assertThat(result.ratio()).isCloseTo(12.499994, org.assertj.core.data.Offset.offset(1e-6));
    assertThat(result.ratioLine()).isEqualTo("ratio flexlog/rocksdb = 12.50");
  }

  @Test
  void shouldWriteTheRatioWithADotWhateverTheDefaultLocale() {
    Locale before = Locale.getDefault();
    Locale.setDefault(Locale.GERMANY);
    try {
      assertThat(ReportFixtures.comparison().ratioLine())
          .isEqualTo("ratio flexlog/rocksdb = 12.50");
    } finally {
      Locale.setDefault(before);
    }
  }

  @Test
  void shouldEndTheTextWithTheRatioLine() {
    List<String> lines = StorageReport.text(ReportFixtures.comparison()).lines().toList();

    assertThat(lines.get(lines.size() - 1)).isEqualTo("ratio flexlog/rocksdb = 12.50");
  }

  @Test
  void shouldPrintBothEnginesThroughputsAndLatencies() {
    String text = StorageReport.text(ReportFixtures.comparison());

    assertThat(text)
        .contains("flexlog: FlexLog replica log, engine llpl")
        .contains("1,234,567.0 ops/s (appends 600,000.0/s, reads 634,567.0/s)")
        .contains("rocksdb: RocksDB \"11.8.1\"")
        .contains("98,765.4 ops/s (appends 50,000.0/s, reads 48,765.4/s)")
        .contains("append (us)  p50 1.2  p99 4.3  p99.9 9.5  max 120.0  mean 1.5")
        .contains("read (us)    p50 0.4  p99 1.0  p99.9 2.0  max 30.0  mean 0.5")
        .contains("full logs    3 trims of the oldest half (4.500 s, counted in the measured time)")
        .contains("verified     2,000 records read back identical");
  }

  @Test
  void shouldLeaveReadLatencyOutOfAnAppendOnlyRun() {
    ComparisonResult appendOnly =
        new ComparisonResult(
            withReadPercent(0),
            ReportFixtures.comparison().flexlog(),
            ReportFixtures.comparison().rocksdb());

    assertThat(StorageReport.text(appendOnly)).doesNotContain("read (us)");
  }

  @Test
  void shouldNameTheModelAndTheDurabilityPairingInTheHeader() {
    String header = StorageReport.header(ReportFixtures.SETTINGS);

    assertThat(header)
        .contains("1024 B records, 2 threads, 50 % reads")
        .contains("RocksDB writes the WAL without sync (sync=false)")
        .contains(StorageReport.THREAD_MODEL)
        .contains("10.0 s measured per thread after 2.0 s warm-up; 10000 records preloaded");
  }

  @Test
  @SuppressWarnings("unchecked")
  void shouldWriteTheSameNumbersAsValidJson() {
    Map<String, Object> json =
        ReportFixtures.parseJson(StorageReport.json(ReportFixtures.comparison()));

    assertThat(json)
        .containsEntry("recordBytes", 1024)
        .containsEntry("threads", 2)
        .containsEntry("readPercent", 50)
        .containsEntry("durability", "process")
        .containsEntry("logBytes", 1073741824)
        .containsEntry("threadModel", StorageReport.THREAD_MODEL)
        .containsEntry("ratio", 12.5);
    Map<String, Object> flexlog = (Map<String, Object>) json.get("flexlog");
    assertThat(flexlog)
        .containsEntry("engine", "llpl")
        .containsEntry("opsPerSec", 1234567.0)
        .containsEntry("appends", 6000000)
        .containsEntry("reads", 6345670)
        .containsEntry("logTrims", 3)
        .containsEntry("verifiedRecords", 2000);
    assertThat((Map<String, Object>) flexlog.get("appendLatencyUs"))
        .containsEntry("count", 1000)
        .containsEntry("p50", 1.2)
        .containsEntry("p99", 4.25)
        .containsEntry("p999", 9.5)
        .containsEntry("max", 120.0);
    Map<String, Object> rocksdb = (Map<String, Object>) json.get("rocksdb");
    assertThat(rocksdb)
        .containsEntry("sync", false)
        .containsEntry("description", "RocksDB \"11.8.1\"")
        .containsEntry("opsPerSec", 98765.4);
  }

  @Test
  void shouldWriteNullForARatioWithoutRocksDbOperations() {
    ComparisonResult none =
        new ComparisonResult(
            ReportFixtures.SETTINGS,
            ReportFixtures.comparison().flexlog(),
            new EngineResult(
                "rocksdb",
                "RocksDB",
                1,
                0,
                0,
                0,
                0,
                ReportFixtures.APPEND_LATENCY,
                ReportFixtures.READ_LATENCY,
                0,
                0,
                0,
                Optional.empty()));

    assertThat(ReportFixtures.parseJson(StorageReport.json(none))).containsEntry("ratio", null);
  }

  @Test
  @SuppressWarnings("unchecked")
  void shouldNameTheTieredEngineItsSizesAndPrintItsTierStats() {
    StorageSettings s = ReportFixtures.SETTINGS;
    StorageSettings tieredSettings =
        new StorageSettings(
            s.recordBytes(),
            s.threads(),
            s.readPercent(),
            s.durability(),
            "llpl",
            s.engineNotice(),
            s.duration(),
            s.warmup(),
            s.dataDir(),
            s.logBytes(),
            Optional.of(new TieredOptions(256L << 20, 64L << 20)),
            s.json());
    EngineResult f = ReportFixtures.comparison().flexlog();
    TierStats tiers =
        new TierStats(750, 250, 4, 128L << 20, 3, 96L << 20, 200L << 20, 60L << 20, 2, 1_500_000);
    EngineResult tieredResult =
        new EngineResult(
            f.name(),
            f.description(),
            f.measuredSeconds(),
            f.appends(),
            f.reads(),
            f.appendsPerSec(),
            f.readsPerSec(),
            f.appendLatency(),
            f.readLatency(),
            0,
            0,
            f.verifiedRecords(),
            Optional.of(tiers));
    ComparisonResult r =
        new ComparisonResult(tieredSettings, tieredResult, ReportFixtures.comparison().rocksdb());

    assertThat(StorageReport.header(tieredSettings))
        .contains(
            "engine=tiered pm-engine=llpl cache-bytes=64MiB pm-bytes=256MiB durability=process"
                + " log-bytes=1GiB per thread");
    assertThat(StorageReport.text(r))
        .contains("750 hits, 250 misses (hit ratio 75.0 %)")
        .contains("4 segments written (128.0 MiB of PM chunks moved to SSD)")
        .contains("3 segments (96.0 MiB) on SSD, 200.0 MiB of PM in use")
        .contains("2 appends waited for tiering to free PM (0.002 s");
    Map<String, Object> json = ReportFixtures.parseJson(StorageReport.json(r));
    assertThat(json).containsEntry("pmBytes", 256 << 20).containsEntry("cacheBytes", 64 << 20);
    Map<String, Object> flexlog = (Map<String, Object>) json.get("flexlog");
    assertThat(flexlog).containsEntry("engine", "tiered").containsEntry("pmEngine", "llpl");
    assertThat((Map<String, Object>) flexlog.get("tiers"))
        .containsEntry("cacheHits", 750)
        .containsEntry("cacheMisses", 250)
        .containsEntry("cacheHitRatio", 0.75)
        .containsEntry("tieringMoves", 4)
        .containsEntry("segments", 3)
        .containsEntry("pmFullWaits", 2);
    assertThat(StorageReport.header(ReportFixtures.SETTINGS))
        .contains("engine=llpl durability=process log-bytes=1GiB per thread; a full log trims");
  }

  private static StorageSettings withReadPercent(int readPercent) {
    StorageSettings s = ReportFixtures.SETTINGS;
    return new StorageSettings(
        s.recordBytes(),
        s.threads(),
        readPercent,
        s.durability(),
        s.engine(),
        s.engineNotice(),
        s.duration(),
        s.warmup(),
        s.dataDir(),
        s.logBytes(),
        s.tiered(),
        s.json());
  }
}
