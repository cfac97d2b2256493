package io.flexlog.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Runs loads on real threads against appenders that complete on a scheduler. */
class LoadRunnerTest {
  private static final int CLIENTS = 8;
  private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2);
  private final AtomicInteger globalOutstanding = new AtomicInteger();
  private final AtomicInteger globalMax = new AtomicInteger();
  private final List<ScheduledAppender> appenders = new ArrayList<>();

  @AfterEach
  void stopScheduler() {
    scheduler.shutdownNow();
  }

  private LoadDriver driver(long budget, CountDownLatch gate) {
    for (int i = 0; i < CLIENTS; i++) {
      appenders.add(new ScheduledAppender(scheduler, 100, gate, globalOutstanding, globalMax));
    }
    return new LoadDriver(List.copyOf(appenders), new byte[64], budget, System::nanoTime);
  }

  private long issued() {
    return appenders.stream().mapToLong(ScheduledAppender::issued).sum();
  }

  @Test
  void shouldRunExactlyCountMeasuredAppendsWithNClientsOutstanding() throws InterruptedException {
    CountDownLatch closedGate = new CountDownLatch(1);
    LoadDriver driver = driver(3000, closedGate);
    driver.beginMeasurement();
    driver.start(); // no append can complete yet: all clients are outstanding at once
    closedGate.countDown();

    assertThat(driver.awaitIdle(Duration.ofMinutes(1))).isTrue();
    Measurement m = driver.measurement();

    assertThat(m.successes()).isEqualTo(3000);
    assertThat(m.errors()).isZero();
    assertThat(m.latencyUs().getTotalCount()).isEqualTo(3000);
    assertThat(issued()).isEqualTo(3000);
    assertThat(appenders).allSatisfy(a -> assertThat(a.maxOutstanding()).isEqualTo(1));
    assertThat(globalMax.get()).isEqualTo(CLIENTS);
    assertThat(globalOutstanding.get()).isZero();
  }

  @Test
  void shouldExcludeWarmupAndDrainEveryAppendInADurationRun() throws InterruptedException {
    LoadDriver driver = driver(Long.MAX_VALUE, new CountDownLatch(0));
    LoadRunner runner =
        new LoadRunner(
            Duration.ofMillis(30), Optional.of(Duration.ofMillis(60)), Duration.ofMinutes(1));

    Measurement m = runner.run(driver);

    assertThat(m.clientsStillBusy()).isZero();
    assertThat(globalOutstanding.get()).isZero();
    assertThat(m.errors()).isZero();
    assertThat(m.latencyUs().getTotalCount()).isEqualTo(m.successes());
    assertThat(driver.completedAppends()).isEqualTo(issued());
    // every client's first append was issued during the warm-up and is not measured
    assertThat(m.successes()).isLessThanOrEqualTo(issued() - CLIENTS);
    assertThat(appenders).allSatisfy(a -> assertThat(a.maxOutstanding()).isEqualTo(1));
  }

  @Test
  void shouldMeasureExactlyCountAppendsAfterTheWarmup() throws InterruptedException {
    LoadDriver driver = driver(500, new CountDownLatch(0));
    LoadRunner runner =
        new LoadRunner(Duration.ofMillis(20), Optional.empty(), Duration.ofMinutes(1));

    Measurement m = runner.run(driver);

    assertThat(m.successes()).isEqualTo(500);
    assertThat(m.clientsStillBusy()).isZero();
    assertThat(issued()).isGreaterThanOrEqualTo(500 + CLIENTS);
    assertThat(driver.completedAppends()).isEqualTo(issued());
  }
}
