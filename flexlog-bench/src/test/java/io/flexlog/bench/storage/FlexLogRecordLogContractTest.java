package io.flexlog.bench.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.LogStorage;
import io.flexlog.replica.storage.StorageEngines;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The contract on a FlexLog engine, plus what only a fixed-capacity log does. */
abstract class FlexLogRecordLogContractTest extends RecordLogContractTest {
  static final long LOG_BYTES = 64L << 20;
  static final long CHUNK_BYTES = 4L << 20;

  abstract String engine();

  @Override
  RecordStore open(Path dir) {
    return new FlexLogStore(engine(), dir, LOG_BYTES, CHUNK_BYTES, DurabilityMode.PROCESS, pattern);
  }

  @Test
  void shouldReportAFullLogAndStartEmptyAfterMakingRoom() {
    RecordLog log = store.openLog(0);
    long appended = 0;
    while (log.append()) {
      appended++;
    }

    assertThat(appended).isGreaterThan(LOG_BYTES / 2 / (RECORD_BYTES + 64));
    assertThat(log.written()).isEqualTo(appended);
    log.makeRoom();
    assertThat(log.written()).isZero();
    assertThat(log.append()).isTrue();
    byte[] read = new byte[RECORD_BYTES];
    log.read(0, read);
    assertThat(Arrays.equals(read, pattern.newRecord(RecordPattern.key(0, 0))))
        .as("record 0 of the new log reads back as written")
        .isTrue();
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
