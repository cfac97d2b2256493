package io.flexlog.bench.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.flexlog.replica.storage.StorageException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class StorageLoadTest {
  private final RecordPattern pattern = new RecordPattern(64);
  private final StringWriter progress = new StringWriter();

  private EngineResult run(FakeStore store, int threads, int readPercent, Duration duration)
      throws InterruptedException {
    StorageLoad.Plan plan =
        new StorageLoad.Plan(
            threads, readPercent, Duration.ofMillis(50), duration, 100, 50, Duration.ofMillis(20));
    return StorageLoad.run(store, plan, pattern, new PrintWriter(progress, true));
  }

  @Test
  void shouldMeasureEveryThreadForTheDurationWithReadsAndAppends() throws InterruptedException {
    FakeStore store = new FakeStore(pattern, Long.MAX_VALUE);

    EngineResult result = run(store, 2, 50, Duration.ofMillis(200));

    assertThat(result.appends()).isPositive();
    assertThat(result.reads()).isPositive();
    assertThat(result.measuredSeconds()).isGreaterThanOrEqualTo(0.2);
    assertThat(result.opsPerSec()).isEqualTo(result.appendsPerSec() + result.readsPerSec());
    assertThat(result.appendLatency().count()).isEqualTo(result.appends());
    assertThat(result.readLatency().count()).isEqualTo(result.reads());
    assertThat(result.verifiedRecords()).isEqualTo(100);
    assertThat(result.logTrims()).isZero();
    assertThat(store.opened.get()).isEqualTo(2);
    assertThat(store.closedLogs.get()).isEqualTo(2);
    assertThat(progress.toString())
        .contains("[bench] fake: preloading 100 records per thread")
        .contains("[bench] fake: warm-up for 0.1 s")
        .contains("[bench] fake: measuring 0.2 s per thread")
        .contains("ops/s");
  }

  @Test
  void shouldCountTheTimeSpentTrimmingFullLogsInTheMeasurement() throws InterruptedException {
    FakeStore store = new FakeStore(pattern, 20_000);
    store.makeRoomMillis = 30;

    EngineResult result = run(store, 1, 0, Duration.ofMillis(100));

    assertThat(result.logTrims()).isPositive();
    assertThat(result.trimSeconds()).isGreaterThanOrEqualTo(result.logTrims() * 0.030);
    // Every second counts: the measured wall time holds the trims, and the rate is over all of it.
    assertThat(result.measuredSeconds()).isGreaterThanOrEqualTo(0.1);
    assertThat(result.measuredSeconds()).isGreaterThanOrEqualTo(result.trimSeconds());
    assertThat(result.appendsPerSec())
        .isCloseTo(result.appends() / result.measuredSeconds(), within(1e-6 * result.appends()));
    assertThat(result.reads()).isZero();
  }

  @Test
  void shouldFailTheRunWhenARecordReadsBackWrong() {
    FakeStore store = new FakeStore(pattern, Long.MAX_VALUE);
    store.corruptBody = true;

    // Reads check the key stamp only; the read-back after the measurement compares every byte.
    assertThatThrownBy(() -> run(store, 2, 50, Duration.ofMillis(50)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("read record")
        .hasMessageContaining("back wrong");
  }

  @Test
  void shouldFailTheRunWhenALogCannotBeOpened() {
    FakeStore store = new FakeStore(pattern, Long.MAX_VALUE);
    store.failOpen = true;

    assertThatThrownBy(() -> run(store, 3, 0, Duration.ofSeconds(30)))
        .isInstanceOf(StorageException.class)
        .hasMessageStartingWith("cannot open fake log");
  }

  @Test
  void shouldRejectAPlanWithoutThreadsOrDuration() {
    assertThatThrownBy(
            () ->
                new StorageLoad.Plan(
                    0, 0, Duration.ZERO, Duration.ofSeconds(1), 0, 0, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                new StorageLoad.Plan(
                    1, 0, Duration.ZERO, Duration.ZERO, 0, 0, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
