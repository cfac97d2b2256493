package io.flexlog.bench.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.StorageEngines;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The contract on a FlexLog engine, plus what only a fixed-capacity log does. */
abstract class FlexLogRecordLogContractTest extends RecordLogContractTest {
  static final long LOG_BYTES = 64L << 20;
  static final long CHUNK_BYTES = 4L << 20;

  abstract String engine();

  @Override
  RecordStore open(Path dir) {
    return new FlexLogStore(
        engine(), dir, LOG_BYTES, CHUNK_BYTES, DurabilityMode.PROCESS, Optional.empty(), pattern);
  }

  @Test
  void shouldReportAFullLogAndReuseItsSpaceAfterTrimmingTheOldestHalf() {
    RecordLog log = store.openLog(0);
    long appended = 0;
    while (log.append()) {
      appended++;
    }
    assertThat(appended).isGreaterThan(LOG_BYTES / 2 / (RECORD_BYTES + 64));
    assertThat(log.written()).isEqualTo(appended);

    for (int round = 1; round <= 3; round++) {
      long before = log.written();
      log.makeRoom();
      long first = log.firstRecord();
      assertThat(first).isGreaterThanOrEqualTo(before / 2);
      assertThat(log.written()).isEqualTo(before);
      assertThatThrownBy(() -> log.read(first - 1, new byte[RECORD_BYTES]))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("trimmed");
      long more = 0;
      while (log.append()) {
        more++;
      }
      // The trimmed chunks took new records: at least a chunk's worth, whole-chunk granularity.
      assertThat(more).as("round %d", round).isGreaterThan(CHUNK_BYTES / (RECORD_BYTES + 64));
    }
    byte[] read = new byte[RECORD_BYTES];
    for (long n : new long[] {log.firstRecord(), log.written() - 1}) {
      log.read(n, read);
      assertThat(Arrays.equals(read, pattern.newRecord(RecordPattern.key(0, n))))
          .as("record %d reads back as written after the trims", n)
          .isTrue();
    }
  }

  @Test
  void shouldCommitAndFlushEveryAppendWithItsSequenceNumber() {
    RecordLog log = store.openLog(0);
    log.preload(5);
    log.append();
    log.append();
    store.close();

    List<Long> sns = new ArrayList<>();
    try (LogStorage reopened =
        StorageEngines.open(
            engine(),
            dir.resolve("store").resolve("log-0"),
            LOG_BYTES,
            CHUNK_BYTES,
            DurabilityMode.PROCESS)) {
      reopened.recover(
          (address, shard, color, session, sequence, sn, length) -> {
            assertThat(length).isEqualTo(RECORD_BYTES);
            assertThat(sequence + 1).isEqualTo(sn);
            sns.add(sn);
          });
    }
    assertThat(sns).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
  }
}
