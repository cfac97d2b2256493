package io.flexlog.bench.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The contract on the tiered engine (cache, mapped PM log, SSD segments), plus what only it does:
 * tiering for real once more than PM is written, serving reads from the cache, and trimming.
 */
class TieredRecordLogTest extends RecordLogContractTest {
  static final long LOG_BYTES = 64L << 20;
  static final long PM_BYTES = 16L << 20;
  static final long CACHE_BYTES = 2L << 20;
  static final long ENTRY_BYTES = RECORD_BYTES + 64;

  @Override
  RecordStore open(Path dir) {
    TieredOptions tiers = new TieredOptions(PM_BYTES, CACHE_BYTES);
    return new FlexLogStore(
        StorageEngines.MAPPED,
        dir,
        LOG_BYTES,
        tiers.chunkBytes(),
        DurabilityMode.PROCESS,
        Optional.of(tiers),
        pattern);
  }

  private static TierStats stats(RecordLog log) {
    return log.tierStats().orElseThrow();
  }

  @Test
  void shouldNameTheTieredEngineAndItsSizes() {
    assertThat(((FlexLogStore) store).engine()).isEqualTo("tiered");
    assertThat(store.description())
        .contains("engine tiered (off-heap cache 2MiB, PM engine mapped 16MiB in 4MiB chunks")
        .contains("retainedPayload");
  }

  @Test
  void shouldMoveRecordsToSsdSegmentsWhenMoreThanPmIsWrittenAndReadThemBack() throws IOException {
    RecordLog log = store.openLog(0);
    long records = 3 * PM_BYTES / ENTRY_BYTES; // three times the PM log
    for (long i = 0; i < records; i++) {
      assertThat(log.append()).isTrue();
    }
    TierStats written = stats(log);

    assertThat(written.tieringMoves()).isPositive();
    assertThat(written.tieringBytes()).isGreaterThanOrEqualTo(PM_BYTES);
    assertThat(written.segments()).isPositive();
    assertThat(written.ssdBytes()).isPositive();
    assertThat(written.pmUsedBytes()).isLessThanOrEqualTo(PM_BYTES);
    try (Stream<Path> files = Files.list(dir.resolve("store/log-0/segments"))) {
      assertThat(files.count()).isGreaterThanOrEqualTo(written.segments());
    }
    // Record 0 left PM for SSD and the cache long ago: a miss, served from a segment.
    byte[] read = new byte[RECORD_BYTES];
    log.read(0, read);
    assertThat(Arrays.equals(read, pattern.newRecord(RecordPattern.key(0, 0)))).isTrue();
    TierStats afterRead = stats(log).since(written);
    assertThat(afterRead.cacheMisses()).isEqualTo(1);
    assertThat(afterRead.cacheHits()).isZero();
    // The miss filled the cache: the same record again is a hit.
    log.read(0, read);
    assertThat(stats(log).since(written).cacheHits()).isEqualTo(1);
  }

  @Test
  void shouldServeRecentRecordsFromTheCache() {
    RecordLog log = store.openLog(0);
    log.preload(500);
    TierStats start = stats(log);

    byte[] read = new byte[RECORD_BYTES];
    for (long n = 0; n < 500; n++) {
      log.read(n, read);
    }
    TierStats reads = stats(log).since(start);

    assertThat(reads.cacheHits()).isEqualTo(500);
    assertThat(reads.cacheMisses()).isZero();
    assertThat(reads.hitRatio()).isEqualTo(1.0);
    assertThat(reads.cacheUsedBytes()).isPositive();
    assertThat(reads.tieringMoves()).isZero();
  }

  @Test
  void shouldFillItsWindowOverAllTiersThenTrimTheOldestHalfAndDropTheirSegments() {
    RecordLog log = store.openLog(0);
    long appended = 0;
    while (log.append()) {
      appended++;
    }
    TierStats full = stats(log);
    assertThat(appended).isEqualTo(FlexLogRecordLog.indexCapacity(LOG_BYTES, RECORD_BYTES) - 1);
    assertThat(full.segments()).isPositive();

    log.makeRoom();

    assertThat(log.firstRecord()).isEqualTo(appended / 2);
    TierStats trimmed = stats(log);
    assertThat(trimmed.segments()).isLessThan(full.segments());
    assertThat(trimmed.ssdBytes()).isLessThan(full.ssdBytes());
    assertThat(log.append()).isTrue();
    Workload workload = new Workload(log, pattern, 0, 100, 7);
    for (int i = 0; i < 1000; i++) {
      assertThat(workload.step()).isEqualTo(Operation.READ);
    }
    assertThat(workload.verify(200)).isEqualTo(200);
  }
}
