package io.flexlog.bench.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the benchmark needs from every engine's {@link RecordLog}. */
abstract class RecordLogContractTest {
  static final int RECORD_BYTES = 1000;

  @TempDir Path dir;
  final RecordPattern pattern = new RecordPattern(RECORD_BYTES);
  RecordStore store;

  abstract RecordStore open(Path dir);

  @BeforeEach
  void openStore() {
    store = open(dir.resolve("store"));
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  @Test
  void shouldReadBackEveryAppendedRecordByteForByte() {
    RecordLog log = store.openLog(2);
    log.preload(1500);
    for (int i = 0; i < 100; i++) {
      assertThat(log.append()).isTrue();
    }

    assertThat(log.written()).isEqualTo(1600);
    byte[] read = new byte[RECORD_BYTES];
    for (long n = 0; n < 1600; n++) {
      int length = log.read(n, read);
      assertThat(length).isEqualTo(RECORD_BYTES);
      assertThat(Arrays.equals(read, pattern.newRecord(RecordPattern.key(2, n))))
          .as("record %d reads back as written", n)
          .isTrue();
    }
  }

  @Test
  void shouldKeepEachThreadsRecordsApart() {
    RecordLog a = store.openLog(0);
    RecordLog b = store.openLog(1);
    a.append();
    b.append();
    b.append();

    byte[] read = new byte[RECORD_BYTES];
    a.read(0, read);
    assertThat(RecordPattern.stampedKey(read)).isEqualTo(RecordPattern.key(0, 0));
    b.read(1, read);
    assertThat(RecordPattern.stampedKey(read)).isEqualTo(RecordPattern.key(1, 1));
    assertThat(a.written()).isEqualTo(1);
    assertThat(b.written()).isEqualTo(2);
  }

  @Test
  void shouldRefuseToReadARecordNotWritten() {
    RecordLog log = store.openLog(0);
    log.append();

    assertThatThrownBy(() -> log.read(1, new byte[RECORD_BYTES]))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("record 1 not written");
  }

  @Test
  void shouldPassAWorkloadsStepsAndVerification() {
    RecordLog log = store.openLog(0);
    log.preload(10);
    Workload workload = new Workload(log, pattern, 0, 50, 42);
    int reads = 0;
    for (int i = 0; i < 2000; i++) {
      Operation op = workload.step();
      assertThat(op).isNotEqualTo(Operation.LOG_FULL);
      reads += op == Operation.READ ? 1 : 0;
    }

    assertThat(reads).isBetween(800, 1200);
    assertThat(workload.verify(100)).isEqualTo(100);
  }
}
