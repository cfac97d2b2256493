package io.flexlog.bench.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class WorkloadTest {
  private final RecordPattern pattern = new RecordPattern(32);

  @Test
  void shouldOnlyAppendWithoutReads() {
    RecordLog log = new FakeStore(pattern, Long.MAX_VALUE).openLog(0);
    log.preload(10);
    Workload workload = new Workload(log, pattern, 0, 0, 1);

    for (int i = 0; i < 1000; i++) {
      assertThat(workload.step()).isEqualTo(Operation.APPEND);
    }
    assertThat(log.written()).isEqualTo(1010);
  }

  @Test
  void shouldAppendFirstWhenNothingIsWrittenYet() {
    RecordLog log = new FakeStore(pattern, Long.MAX_VALUE).openLog(0);
    Workload workload = new Workload(log, pattern, 0, 100, 1);

    assertThat(workload.step()).isEqualTo(Operation.APPEND);
    assertThat(workload.step()).isEqualTo(Operation.READ);
  }

  @Test
  void shouldReadAboutTheRequestedShare() {
    RecordLog log = new FakeStore(pattern, Long.MAX_VALUE).openLog(0);
    log.preload(1);
    Workload workload = new Workload(log, pattern, 0, 95, 7);
    int reads = 0;
    for (int i = 0; i < 10_000; i++) {
      reads += workload.step() == Operation.READ ? 1 : 0;
    }

    assertThat(reads).isBetween(9_300, 9_700);
  }

  @Test
  void shouldReadOnlyAmongTheNewestRecordsOfTheWindow() {
    RecordLog inner = new FakeStore(pattern, Long.MAX_VALUE).openLog(0);
    long[] lowest = {Long.MAX_VALUE};
    RecordLog log =
        new RecordLog() {
          @Override
          public boolean append() {
            return inner.append();
          }

          @Override
          public void preload(int records) {
            inner.preload(records);
          }

          @Override
          public int read(long recordNumber, byte[] destination) {
            lowest[0] = Math.min(lowest[0], recordNumber);
            return inner.read(recordNumber, destination);
          }

          @Override
          public long written() {
            return inner.written();
          }

          @Override
          public long firstRecord() {
            return inner.firstRecord();
          }

          @Override
          public void makeRoom() {
            inner.makeRoom();
          }

          @Override
          public void close() {
            inner.close();
          }
        };
    log.preload(1000);
    Workload workload = new Workload(log, pattern, 0, 100, 3, 100);
    for (int i = 0; i < 5000; i++) {
      assertThat(workload.step()).isEqualTo(Operation.READ);
    }

    assertThat(lowest[0]).isBetween(900L, 905L);
  }

  @Test
  void shouldReportAFullLog() {
    RecordLog log = new FakeStore(pattern, 1).openLog(0);
    Workload workload = new Workload(log, pattern, 0, 0, 1);

    assertThat(workload.step()).isEqualTo(Operation.APPEND);
    assertThat(workload.step()).isEqualTo(Operation.LOG_FULL);
  }

  @Test
  void shouldFailAReadOfAnotherRecordsBytes() {
    RecordLog wrongRecord =
        new FakeStore(pattern, Long.MAX_VALUE) {
          @Override
          public RecordLog openLog(int thread) {
            return super.openLog(thread + 1); // reads come back stamped for another thread
          }
        }.openLog(0);
    wrongRecord.preload(5);
    Workload workload = new Workload(wrongRecord, pattern, 0, 100, 1);

    assertThatThrownBy(workload::step)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("thread 0 read record");
  }

  @Test
  void shouldVerifyEveryByteOfASampleIncludingFirstAndLast() {
    FakeStore store = new FakeStore(pattern, Long.MAX_VALUE);
    RecordLog log = store.openLog(0);
    log.preload(1000);
    Workload workload = new Workload(log, pattern, 0, 0, 1);

    assertThat(workload.verify(10)).isEqualTo(10);
    assertThat(workload.verify(5000)).isEqualTo(1000);

    store.corruptBody = true;
    assertThatThrownBy(() -> workload.verify(10)).hasMessageContaining("record 0 back wrong");
  }
}
