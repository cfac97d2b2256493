package io.flexlog.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LoadDriverTest {
  private static final byte[] PAYLOAD = new byte[16];
  private final AtomicLong clockNs = new AtomicLong();

  private List<ManualAppender> appenders(int n) {
    List<ManualAppender> list = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      list.add(new ManualAppender());
    }
    return list;
  }

  private LoadDriver driver(List<? extends AsyncAppender> appenders, long budget) {
    return new LoadDriver(List.copyOf(appenders), PAYLOAD, budget, clockNs::get);
  }

  @Test
  void shouldKeepExactlyOneAppendOutstandingPerClient() {
    List<ManualAppender> clients = appenders(3);
    LoadDriver driver = driver(clients, Long.MAX_VALUE);
    driver.start();
    Random random = new Random(7);

    for (int step = 0; step < 1000; step++) {
      assertThat(clients).allSatisfy(c -> assertThat(c.outstanding()).isEqualTo(1));
      clients.get(random.nextInt(3)).succeed();
    }

    assertThat(clients.stream().mapToInt(ManualAppender::issued).sum()).isEqualTo(1000 + 3);
    assertThat(driver.completedAppends()).isEqualTo(1000);
  }

  @Test
  void shouldMeasureOnlyAppendsIssuedAfterTheWarmup() throws InterruptedException {
    List<ManualAppender> c = appenders(2);
    LoadDriver driver = driver(c, Long.MAX_VALUE);
    driver.start(); // t=0: both clients issue warm-up appends
    clockNs.set(1_000_000);
    c.get(0).succeed(); // warm-up; client 0 issues another warm-up append at 1 ms
    clockNs.set(2_000_000);
    driver.beginMeasurement();
    clockNs.set(3_000_000);
    c.get(1).succeed(); // issued in the warm-up: not measured; client 1 issues at 3 ms, measured
    clockNs.set(4_000_000);
    c.get(0).succeed(); // issued in the warm-up; client 0 issues at 4 ms, measured
    clockNs.set(4_100_000);
    driver.stopIssuing();
    clockNs.set(4_250_000);
    c.get(1).succeed(); // 1250 us
    clockNs.set(4_500_000);
    c.get(0).succeed(); // 500 us

    assertThat(driver.awaitIdle(Duration.ZERO)).isTrue();
    Measurement m = driver.measurement();
    assertThat(m.successes()).isEqualTo(2);
    assertThat(m.errors()).isZero();
    assertThat(m.latencyUs().getTotalCount()).isEqualTo(2);
    assertThat(m.latencyUs().getMinValue()).isEqualTo(500);
    assertThat(m.latencyUs().getMaxValue()).isEqualTo(1250);
    assertThat(m.elapsedNs()).isEqualTo(2_500_000);
    assertThat(m.clientsStillBusy()).isZero();
    assertThat(driver.completedAppends()).isEqualTo(5);
    assertThat(c).allSatisfy(a -> assertThat(a.outstanding()).isZero());
  }

  @Test
  void shouldIssueExactlyTheBudgetThenStopEveryClient() throws InterruptedException {
    List<ManualAppender> c = appenders(2);
    LoadDriver driver = driver(c, 5);
    driver.beginMeasurement();
    driver.start();

    while (c.get(0).outstanding() + c.get(1).outstanding() > 0) {
      (c.get(0).outstanding() > 0 ? c.get(0) : c.get(1)).succeed();
    }

    assertThat(c.get(0).issued() + c.get(1).issued()).isEqualTo(5);
    assertThat(driver.awaitIdle(Duration.ZERO)).isTrue();
    assertThat(driver.measurement().successes()).isEqualTo(5);
  }

  @Test
  void shouldCountFailuresAndKeepGoing() throws InterruptedException {
    ManualAppender appender = new ManualAppender();
    LoadDriver driver = driver(List.of(appender), 4);
    driver.beginMeasurement();
    driver.start();

    appender.succeed();
    appender.fail(new IllegalStateException("boom"));
    appender.fail(new CompletionException(new IllegalArgumentException("second")));
    appender.succeed();

    assertThat(driver.awaitIdle(Duration.ZERO)).isTrue();
    Measurement m = driver.measurement();
    assertThat(m.successes()).isEqualTo(2);
    assertThat(m.errors()).isEqualTo(2);
    assertThat(m.latencyUs().getTotalCount()).isEqualTo(2);
    assertThat(m.firstError()).contains("IllegalStateException: boom");
  }

  @Test
  void shouldNotCountWarmupFailuresAsMeasuredErrors() {
    ManualAppender appender = new ManualAppender();
    LoadDriver driver = driver(List.of(appender), Long.MAX_VALUE);
    driver.start();
    appender.fail(new IllegalStateException("during warm-up"));
    driver.beginMeasurement();
    appender.fail(new IllegalStateException("issued during warm-up"));
    driver.stopIssuing();
    appender.succeed();

    Measurement m = driver.measurement();
    assertThat(m.errors()).isZero();
    assertThat(m.successes()).isEqualTo(1);
    assertThat(m.firstError()).isEmpty();
  }

  @Test
  void shouldLoopInsteadOfRecursingWhenAppendsCompleteSynchronously() throws InterruptedException {
    int budget = 50_000;
    LoadDriver driver = driver(List.of(payload -> CompletableFuture.completedFuture(1L)), budget);
    driver.beginMeasurement();

    driver.start(); // every append completes inside start(), on this thread

    assertThat(driver.awaitIdle(Duration.ZERO)).isTrue();
    assertThat(driver.measurement().successes()).isEqualTo(budget);
  }

  @Test
  void shouldCountAnAppenderThatThrowsAsFailedAppends() throws InterruptedException {
    int budget = 50_000;
    AsyncAppender throwing =
        payload -> {
          throw new IllegalStateException("rejected");
        };
    LoadDriver driver = driver(List.of(throwing), budget);
    driver.beginMeasurement();

    driver.start();

    assertThat(driver.awaitIdle(Duration.ZERO)).isTrue();
    Measurement m = driver.measurement();
    assertThat(m.errors()).isEqualTo(budget);
    assertThat(m.successes()).isZero();
    assertThat(m.firstError()).contains("IllegalStateException: rejected");
  }

  @Test
  void shouldStopIssuingButStillCountOutstandingAppends() throws InterruptedException {
    List<ManualAppender> c = appenders(3);
    LoadDriver driver = driver(c, Long.MAX_VALUE);
    driver.beginMeasurement();
    driver.start();
    driver.stopIssuing();

    assertThat(driver.awaitIdle(Duration.ZERO)).isFalse();
    assertThat(driver.measurement().clientsStillBusy()).isEqualTo(3);
    c.forEach(ManualAppender::succeed);

    assertThat(driver.awaitIdle(Duration.ZERO)).isTrue();
    assertThat(c).allSatisfy(a -> assertThat(a.issued()).isEqualTo(1));
    assertThat(driver.measurement().successes()).isEqualTo(3);
  }
}
